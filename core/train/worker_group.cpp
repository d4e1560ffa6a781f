// SPDX-License-Identifier: GPL-3.0-or-later
#include "train/worker_group.h"

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>

#include "accumlab/input_error.h"
#include "train/gloo_device.h"
#include "train/grad_window.h"
#include "train/rendezvous.h"

namespace accumlab {

namespace {

using Clock = std::chrono::steady_clock;

// Up to this many ranks, allReduceSum gathers every buffer and sums it locally: Gloo's ring
// all-reduce takes a round trip per step, and measured 1.7 ms for 118k floats between two
// processes on a 2-core machine, its all-gather 0.85 ms. Beyond, the ring moves less data.
constexpr int kGatherUpTo = 4;

}  // namespace

struct WorkerGroup::Impl {
  std::unique_ptr<Rendezvous> rendezvous;  ///< the store the ranks met on
  c10::intrusive_ptr<c10d::ProcessGroupGloo> group;
  std::vector<std::vector<at::Tensor>> gathered;  ///< every rank's buffer (allReduceSum)
};

WorkerGroup::WorkerGroup(const WorkerGroupOptions& options, int world,
                         const std::string& fingerprint)
    : impl_(std::make_unique<Impl>()),
      rank_(options.rank),
      world_(world),
      timeout_s_(options.timeout_s) {
  if (world < 2) throw InputError("a data-parallel run needs at least 2 workers");
  if (rank_ < 0 || rank_ >= world) {
    throw InputError("rank " + std::to_string(rank_) + " is outside a run of " +
                     std::to_string(world) + " workers (ranks 0 to " + std::to_string(world - 1) +
                     ")");
  }
  if (!(timeout_s_ > 0)) throw InputError("the worker timeout must be positive");
  // c10d and Gloo log every failed connection attempt; the sentences below say what went
  // wrong once. c10's own level is what a LibTorch without glog filters by (the pip wheels');
  // one with glog (Debian's) filters by glog's, which c10's can only lower.
  FLAGS_caffe2_log_level = std::max(FLAGS_caffe2_log_level, 3);
#ifdef C10_USE_GLOG
  FLAGS_minloglevel = std::max(FLAGS_minloglevel, 3);
#endif
  // A write to a worker that died must fail as an error the roll call below can name, not
  // end this process with SIGPIPE (seen once in DataParallel.ALostWorkerFailsTheRunWithItsRank).
  std::signal(SIGPIPE, SIG_IGN);
  const auto timeout = toMillis(timeout_s_);
  impl_->rendezvous = std::make_unique<Rendezvous>(options, world, fingerprint);
  const Rendezvous& met = *impl_->rendezvous;

  auto group_options = c10d::ProcessGroupGloo::Options::create(timeout);
  try {
    group_options->devices.push_back(glooDevice(met.local(), options.host, met.port()));
  } catch (const std::exception& e) {
    throw InputError("rank " + std::to_string(rank_) +
                     " has no network device for the other workers (" + firstLine(e) + ")");
  }
  group_options->threads = 2;
  try {
    impl_->group =
        c10::make_intrusive<c10d::ProcessGroupGloo>(met.store(), rank_, world, group_options);
  } catch (const std::exception& e) {
    throw InputError("the " + std::to_string(world) + " workers at " + met.where() +
                     " could not connect to each other (" + firstLine(e) + ")");
  }
}

WorkerGroup::~WorkerGroup() = default;

void WorkerGroup::leave() { impl_->group.reset(); }

void WorkerGroup::allReduceSum(torch::Tensor& buffer) {
  const auto t0 = Clock::now();
  ++reduces_.count;
  if (!impl_->group) throw WorkerLost("this rank has left the run; it sums nothing more");
  try {
    std::vector<torch::Tensor> tensors{buffer};
    if (world_ <= kGatherUpTo) {
      // Every rank's buffer to every rank, summed here in rank order: the same bits on each.
      auto& gathered = impl_->gathered;
      if (gathered.empty() || !gathered[0][0].sizes().equals(buffer.sizes()) ||
          gathered[0][0].scalar_type() != buffer.scalar_type()) {
        gathered.assign(1, {});
        for (int r = 0; r < world_; ++r) gathered[0].push_back(torch::empty_like(buffer));
      }
      impl_->group->allgather(gathered, tensors)->wait(toMillis(timeout_s_));
      torch::NoGradGuard no_grad;
      buffer.copy_(gathered[0][0]);
      for (int r = 1; r < world_; ++r) buffer.add_(gathered[0][r]);
    } else {
      impl_->group->allreduce(tensors)->wait(toMillis(timeout_s_));
    }
  } catch (const std::exception& e) {
    // Gloo's messages start with its source position: "[…/pair.cc:598] Connection closed …".
    std::string detail = firstLine(e);
    if (!detail.empty() && detail.front() == '[') detail = detail.substr(detail.find("] ") + 2);
    throw WorkerLost(whoIsGone(detail));
  }
  reduces_.last_s = std::chrono::duration<double>(Clock::now() - t0).count();
  reduces_.total_s += reduces_.last_s;
}

std::string WorkerGroup::whoIsGone(const std::string& detail) {
  const std::vector<int> gone = impl_->rendezvous->rollCall(world_);
  const std::string who =
      gone.empty() ? "a worker"
                   : (gone.size() == 1 ? "worker rank " : "worker ranks ") + rankList(gone);
  return who + " stopped responding in the all-reduce of window " + std::to_string(reduces_.count) +
         ": it died, or hung past the " + secondsText(timeout_s_) + " timeout (Gloo: " + detail +
         ")";
}

// One accum window's all-reduce (reduceWindow): this rank's gradient, its share of the
// window's sums and its wish to stop, packed into one buffer.

void WorkerGroup::reduceWindow(std::vector<torch::Tensor>& params,
                               const std::vector<torch::Tensor>& share, int64_t window_samples,
                               WindowResult& r) {
  double share_samples = 0;
  for (const auto& mb : share) share_samples += static_cast<double>(mb.size(0));
  std::vector<torch::Tensor> parts;
  parts.reserve(params.size() + 1);
  int64_t grad_numel = 0;
  for (const auto& p : params) {
    parts.push_back(p.grad().reshape(-1));
    grad_numel += p.numel();
  }
  // The sums ride in the gradients' buffer: one all-reduce per window.
  enum Sum {
    kLoss,
    kMean,
    kMeanSq,
    kBatches,
    kSmallSq,
    kInvSize,
    kMeasured,
    kSamples,
    kStop,
    kCount
  };
  double sums[kCount] = {r.loss_sum, r.mean_sum,     r.mean_sq_sum,
                         r.batches,  r.small_sq_sum, r.inv_size_sum,
                         r.measured, share_samples,  stopWanted() ? 1.0 : 0.0};
  parts.push_back(
      torch::from_blob(sums, {kCount}, torch::kFloat64).to(params.front().grad().options()));
  torch::Tensor buffer = torch::cat(parts);
  allReduceSum(buffer);
  torch::NoGradGuard no_grad;
  int64_t at = 0;
  for (auto& p : params) {
    p.mutable_grad().copy_(buffer.narrow(0, at, p.numel()).view_as(p));
    at += p.numel();
  }
  const torch::Tensor total = buffer.narrow(0, grad_numel, kCount).to(torch::kCPU, torch::kFloat64);
  const double* t = total.data_ptr<double>();
  if (std::llround(t[kSamples]) != window_samples) {
    throw std::runtime_error("the workers trained " + std::to_string(std::llround(t[kSamples])) +
                             " samples of a window of " + std::to_string(window_samples) +
                             ": they do not share one sample stream");
  }
  r.loss_sum = t[kLoss];
  r.mean_sum = t[kMean];
  r.mean_sq_sum = t[kMeanSq];
  r.batches = t[kBatches];
  r.small_sq_sum = t[kSmallSq];
  r.inv_size_sum = t[kInvSize];
  r.measured = t[kMeasured];
  const double norm = buffer.narrow(0, 0, grad_numel).norm().item<double>();
  r.grad_sq = norm * norm;
  r.finish();
  agreeStop(t[kStop] > 0);
}

}  // namespace accumlab
