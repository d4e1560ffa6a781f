// SPDX-License-Identifier: GPL-3.0-or-later
#include "memory/memory_probe.h"

#include <unistd.h>

#include <fstream>
#include <string>

#include "memory/cuda_allocator.h"

namespace accumlab {
namespace {

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
  if (device.is_cuda()) return cudaAllocatedBytes(device);
  std::ifstream in("/proc/self/statm");
  int64_t size = 0, resident = 0;
  in >> size >> resident;
  return resident * static_cast<int64_t>(sysconf(_SC_PAGESIZE));
}

int64_t peakMemory(const torch::Device& device) {
  if (device.is_cuda()) return cudaPeakAllocatedBytes(device);
  return statusKb("VmHWM") * 1024;
}

}  // namespace accumlab
