// SPDX-License-Identifier: GPL-3.0-or-later
#include "accumlab/device.h"

#include <dlfcn.h>
#include <malloc.h>
#include <torch/torch.h>

#include "train/device_select.h"

#include "accumlab/input_error.h"

namespace accumlab {

namespace {
// Two cores: one torch intra-op thread and one OpenBLAS thread per process measured fastest
// for micro-batches up to a few hundred samples (docs/performance.md).
constexpr int kDefaultThreads = 1;
}  // namespace

bool cudaAvailable() { return torch::cuda::is_available(); }

int cudaDeviceCount() {
  return cudaAvailable() ? static_cast<int>(torch::cuda::device_count()) : 0;
}

namespace {
/// glibc hands freed memory back to the kernel, and the next window's tensors of the same
/// sizes fault their pages in again (about 10 page faults per window on the MLP 784-256-10
/// at m = 8, none with this). A training loop allocates the same sizes every window, so
/// freed memory stays in the process for reuse: blocks up to 32 MiB (glibc's largest mmap
/// threshold) come from the heap, and up to 128 MiB of free heap is kept. Measured on that
/// MLP, medians of 7 interleaved runs: 17.4k → 22.1k samples/s at K = 1, +1.6% at K = 8.
void keepFreedMemoryForReuse() {
  constexpr int kMmapThreshold = 32 << 20;
  constexpr int kTrimThreshold = 128 << 20;
  static const bool done = mallopt(M_MMAP_THRESHOLD, kMmapThreshold) != 0 &&
                           mallopt(M_TRIM_THRESHOLD, kTrimThreshold) != 0;
  (void)done;
}
}  // namespace

void flushDenormals() { at::globalContext().setFlushDenormal(true); }

void configureThreads(int threads) {
  keepFreedMemoryForReuse();  // once per process, like the thread counts
  flushDenormals();           // on the calling thread, and the threads it starts after
  static int configured = 0;  // the count this process runs with; 0 before the first call
  const int n = threads > 0 ? threads : kDefaultThreads;
  if (n == configured) return;
  configured = n;
  torch::set_num_threads(n);
  // OpenBLAS keeps its own pool; looked up at run time because the BLAS behind LibTorch
  // is chosen by the system (Debian's alternatives), not at link time.
  using SetThreads = void (*)(int);
  if (auto set = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))) {
    set(n);
  }
}

torch::Device resolveDevice(const std::string& spec) {
  if (spec == "cpu") return torch::Device(torch::kCPU);
  if (spec == "auto") {
    return cudaAvailable() ? torch::Device(torch::kCUDA, 0) : torch::Device(torch::kCPU);
  }
  if (spec == "cuda" || spec.rfind("cuda:", 0) == 0) {
    int index = 0;
    if (spec.size() > 5) {
      try {
        size_t used = 0;
        index = std::stoi(spec.substr(5), &used);
        if (used != spec.size() - 5 || index < 0) throw std::invalid_argument(spec);
      } catch (const std::exception&) {
        throw InputError("device '" + spec + "' is not valid: use auto, cpu, cuda or cuda:N");
      }
    }
    if (!cudaAvailable()) {
      throw InputError("device '" + spec +
                       "' was requested but this LibTorch has no CUDA device; use --device cpu "
                       "or auto");
    }
    if (index >= cudaDeviceCount()) {
      throw InputError("device '" + spec + "' does not exist: " +
                       std::to_string(cudaDeviceCount()) + " CUDA device(s) found");
    }
    return torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(index));
  }
  throw InputError("device '" + spec + "' is not valid: use auto, cpu, cuda or cuda:N");
}

std::string describeDevice(const torch::Device& device) {
  if (device.is_cpu()) {
    // OpenBLAS names the kernels it runs: "Prescott" (its generic SSE3 ones) on a CPU it did
    // not recognise runs the matrix products 2–5× slower (docs/performance.md).
    using CoreName = char* (*)();
    std::string blas;
    if (auto name = reinterpret_cast<CoreName>(dlsym(RTLD_DEFAULT, "openblas_get_corename"))) {
      blas = std::string(", OpenBLAS ") + name();
    }
    return "cpu (" + std::to_string(torch::get_num_threads()) + " thread" +
           (torch::get_num_threads() == 1 ? "" : "s") + blas + ")";
  }
  return device.str();
}

void useFullFloat32OnCuda() {
  // TF32 keeps 10 bits of mantissa: accum and big-batch would then differ by ~1e-3 instead
  // of float32 rounding (~1e-7), and the accumulation check could not tell the two apart.
  // These setters exist from 1.13 through 2.x (2.x adds per-backend precisions beside them;
  // using only these keeps the two from disagreeing).
  at::globalContext().setAllowTF32CuBLAS(false);
  at::globalContext().setAllowTF32CuDNN(false);
}

}  // namespace accumlab
