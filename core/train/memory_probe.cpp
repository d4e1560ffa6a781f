#include "train/memory_probe.h"

#include <unistd.h>

#include <fstream>
#include <string>

// ACCUMLAB_WITH_CUDA is set by CMake when LibTorch was built with CUDA (Debian's is not,
// but ships the CUDA headers anyway, so __has_include cannot tell).
#ifdef ACCUMLAB_WITH_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#define ACCUMLAB_HAS_CUDA_ALLOCATOR 1
#endif

namespace accumlab {
namespace {

int64_t cudaPeak(const torch::Device& device) {
#ifdef ACCUMLAB_HAS_CUDA_ALLOCATOR
  const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(device.index());
  return stats.allocated_bytes[static_cast<size_t>(c10::cuda::CUDACachingAllocator::StatType::AGGREGATE)]
      .peak;
#else
  return 0;
#endif
}

int64_t statusKb(const char* key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const std::string prefix = std::string(key) + ":";
  while (std::getline(in, line)) {
    if (line.rfind(prefix, 0) == 0) return std::stoll(line.substr(prefix.size()));
  }
  return 0;
}

}  // namespace

int64_t memoryInUse(const torch::Device& device) {
  if (device.is_cuda()) return cudaPeak(device);
  std::ifstream in("/proc/self/statm");
  int64_t size = 0, resident = 0;
  in >> size >> resident;
  return resident * static_cast<int64_t>(sysconf(_SC_PAGESIZE));
}

int64_t peakMemory(const torch::Device& device) {
  if (device.is_cuda()) return cudaPeak(device);
  return statusKb("VmHWM") * 1024;
}

}  // namespace accumlab
