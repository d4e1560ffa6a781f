// SPDX-License-Identifier: GPL-3.0-or-later
#include "train/sgd_step.h"

#include <c10/util/string_utils.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace accumlab {

namespace {

// torch::optim::SGD::step's arithmetic for one parameter, element by element, written as
// ATen computes each of its ops: `add(other, alpha)` is self + alpha·other as one fused
// multiply-add (ATen's vectorised add, and its scalar one where the compiler contracts it,
// which the probe below checks), `mul_(momentum)` one rounded product. The dtype's copy of
// each scalar is what ATen converts it to. In order:
//   d = g.add(p, wd)                 (weight decay, when not 0)
//   buf.mul_(momentum).add_(d, 1)    (momentum, when not 0; the first step clones d instead)
//   d = d.add(buf, momentum) or buf  (Nesterov or not)
//   p.add_(d, -lr)
//
// GCC contracts a * b + c into one fused multiply-add in C++ whatever the -std (its
// -ffp-contract=fast): here the momentum's product must be rounded before its sum, as ATen's
// mul_ and add_ round them, so these functions are compiled without contraction.
#if defined(__GNUC__) && !defined(__clang__)
#define ACCUMLAB_NO_CONTRACTION __attribute__((optimize("fp-contract=off")))
#else
#define ACCUMLAB_NO_CONTRACTION
#endif

template <typename T>
inline __attribute__((always_inline)) ACCUMLAB_NO_CONTRACTION void sgdUpdateBody(
    T* __restrict p, const T* __restrict g, T* __restrict buf, int64_t n, T wd, T mom,
    bool nesterov, T alpha) {
  const bool decay = wd != 0;
  if (mom == 0) {
    for (int64_t i = 0; i < n; ++i) {
      const T d = decay ? std::fma(p[i], wd, g[i]) : g[i];
      p[i] = std::fma(d, alpha, p[i]);
    }
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    const T d = decay ? std::fma(p[i], wd, g[i]) : g[i];
    T b = buf[i] * mom;
    b = b + d;  // add_(d, 1): fma(d, 1, b) is b + d rounded once
    buf[i] = b;
    p[i] = std::fma(nesterov ? std::fma(b, mom, d) : b, alpha, p[i]);
  }
}

// std::fma is one instruction where the CPU has FMA and the code is compiled for it, a library
// call otherwise: the loop in a copy for AVX2 and FMA, chosen by the CPU's features (a
// target_clones of arch=haswell would go by the CPU's model name, which a virtual machine's
// CPU may not have).
#if defined(__GNUC__) && defined(__x86_64__)
#define ACCUMLAB_SGD_FMA 1
__attribute__((target("avx2,fma"))) ACCUMLAB_NO_CONTRACTION void sgdUpdateFma(
    float* p, const float* g, float* buf, int64_t n, float wd, float mom, bool nesterov,
    float alpha) {
  sgdUpdateBody(p, g, buf, n, wd, mom, nesterov, alpha);
}

__attribute__((target("avx2,fma"))) ACCUMLAB_NO_CONTRACTION void sgdUpdateFma(
    double* p, const double* g, double* buf, int64_t n, double wd, double mom, bool nesterov,
    double alpha) {
  sgdUpdateBody(p, g, buf, n, wd, mom, nesterov, alpha);
}

bool cpuHasFma() {
  static const bool yes = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  }();
  return yes;
}
#endif

template <typename T>
ACCUMLAB_NO_CONTRACTION void sgdUpdate(T* p, const T* g, T* buf, int64_t n, T wd, T mom,
                                       bool nesterov, T alpha) {
#ifdef ACCUMLAB_SGD_FMA
  if (cpuHasFma()) {
    sgdUpdateFma(p, g, buf, n, wd, mom, nesterov, alpha);
    return;
  }
#endif
  sgdUpdateBody(p, g, buf, n, wd, mom, nesterov, alpha);
}

template <typename T>
void sgdUpdateTensors(const torch::Tensor& p, const torch::Tensor& g, const torch::Tensor& buf,
                      double wd, double mom, bool nesterov, double lr) {
  sgdUpdate(p.data_ptr<T>(), g.data_ptr<T>(), buf.defined() ? buf.data_ptr<T>() : nullptr,
            p.numel(), static_cast<T>(wd), static_cast<T>(mom), nesterov, static_cast<T>(-1 * lr));
}

// The optimizer's state key of a parameter, as torch::optim::SGD makes it.
std::string sgdStateKey(const torch::Tensor& p) {
  return c10::guts::to_string(p.unsafeGetTensorImpl());
}

bool plainCpuTensorOf(const torch::Tensor& t, torch::Dtype dtype) {
  return t.defined() && t.device().is_cpu() && t.layout() == torch::kStrided &&
         t.scalar_type() == dtype && t.is_contiguous() && !t.is_conj() && !t.is_neg();
}

// The step without the probe: false, having changed nothing, where a parameter does not
// qualify.
bool sgdStepUnchecked(torch::optim::SGD& sgd) {
  auto& state = sgd.state();
  for (auto& group : sgd.param_groups()) {
    const auto& o = static_cast<const torch::optim::SGDOptions&>(group.options());
    if (o.dampening() != 0) return false;
    for (const auto& p : group.params()) {
      const torch::Tensor& g = p.grad();
      if (!g.defined()) continue;
      const torch::Dtype dtype = p.scalar_type();
      if ((dtype != torch::kFloat32 && dtype != torch::kFloat64) || !plainCpuTensorOf(p, dtype) ||
          !plainCpuTensorOf(g, dtype) || g.numel() != p.numel()) {
        return false;
      }
      if (o.momentum() == 0) continue;
      const auto it = state.find(sgdStateKey(p));
      if (it != state.end()) {
        const auto& buf = static_cast<torch::optim::SGDParamState&>(*it->second).momentum_buffer();
        if (!plainCpuTensorOf(buf, dtype) || buf.numel() != p.numel()) return false;
      }
    }
  }
  torch::NoGradGuard no_grad;
  for (auto& group : sgd.param_groups()) {
    const auto& o = static_cast<const torch::optim::SGDOptions&>(group.options());
    for (const auto& p : group.params()) {
      const torch::Tensor& g = p.grad();
      if (!g.defined()) continue;
      torch::Tensor buf;
      if (o.momentum() != 0) {
        const std::string key = sgdStateKey(p);
        const auto it = state.find(key);
        if (it == state.end()) {
          // The first step: LibTorch's own ops, once (the buffer is a clone of the step).
          torch::Tensor d = g;
          if (o.weight_decay() != 0) d = d.add(p, o.weight_decay());
          buf = torch::clone(d).detach();
          auto fresh = std::make_unique<torch::optim::SGDParamState>();
          fresh->momentum_buffer(buf);
          state[key] = std::move(fresh);
          if (o.nesterov())
            d = d.add(buf, o.momentum());
          else
            d = buf;
          p.data().add_(d, -1 * o.lr());
          continue;
        }
        buf = static_cast<torch::optim::SGDParamState&>(*it->second).momentum_buffer();
      }
      if (p.scalar_type() == torch::kFloat32) {
        sgdUpdateTensors<float>(p, g, buf, o.weight_decay(), o.momentum(), o.nesterov(), o.lr());
      } else {
        sgdUpdateTensors<double>(p, g, buf, o.weight_decay(), o.momentum(), o.nesterov(), o.lr());
      }
    }
  }
  return true;
}

// Whether sgdStepUnchecked gives LibTorch's SGD bits in this process: both on the same random
// parameters and gradients, of sizes that ATen runs through its vectorised loop, its scalar
// loop and both, three steps each (the first creates the momentum buffers), under each form
// of the update. A compiler or an ATen that rounds a multiply-add in two steps shows here.
bool sgdProbeMatches(torch::Dtype dtype) {
  std::mt19937_64 rng(0x5eed);
  std::normal_distribution<double> normal;
  const auto random = [&](int64_t n) {
    torch::Tensor t = torch::empty({n}, torch::TensorOptions(torch::kFloat64));
    double* v = t.data_ptr<double>();
    for (int64_t i = 0; i < n; ++i) v[i] = normal(rng);
    return t.to(dtype);
  };
  struct SgdSetting {
    double momentum, weight_decay;
    bool nesterov;
  };
  torch::NoGradGuard no_grad;
  for (const SgdSetting s : {SgdSetting{0.9, 0, false}, SgdSetting{0.9, 1e-3, true},
                             SgdSetting{0, 1e-2, false}, SgdSetting{0.5, 0, true}}) {
    std::vector<torch::Tensor> theirs, ours;
    for (const int64_t n : {1, 10, 67, 256}) {
      const torch::Tensor t = random(n);
      theirs.push_back(t.clone().requires_grad_());
      ours.push_back(t.clone().requires_grad_());
    }
    const auto options = torch::optim::SGDOptions(0.1)
                             .momentum(s.momentum)
                             .weight_decay(s.weight_decay)
                             .nesterov(s.nesterov);
    torch::optim::SGD reference(theirs, options), fused(ours, options);
    for (int step = 0; step < 3; ++step) {
      for (size_t i = 0; i < theirs.size(); ++i) {
        const torch::Tensor g = random(theirs[i].numel());
        theirs[i].mutable_grad() = g.clone();
        ours[i].mutable_grad() = g;
      }
      reference.step();
      if (!sgdStepUnchecked(fused)) return false;
      for (size_t i = 0; i < theirs.size(); ++i) {
        if (!torch::equal(theirs[i], ours[i])) return false;
      }
    }
  }
  return true;
}

}  // namespace

bool fusedSgdMatchesLibTorch(torch::Dtype dtype) {
  static const bool float32 = sgdProbeMatches(torch::kFloat32);
  static const bool float64 = sgdProbeMatches(torch::kFloat64);
  return dtype == torch::kFloat32 ? float32 : dtype == torch::kFloat64 && float64;
}

bool fusedSgdStep(torch::optim::Optimizer& optimizer) {
  auto* sgd = dynamic_cast<torch::optim::SGD*>(&optimizer);
  if (!sgd) return false;
  for (const auto& group : sgd->param_groups()) {
    for (const auto& p : group.params()) {
      if (!fusedSgdMatchesLibTorch(p.scalar_type())) return false;
    }
  }
  return sgdStepUnchecked(*sgd);
}

}  // namespace accumlab
