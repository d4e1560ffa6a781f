// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace accumlab {

/// A user's TorchScript file is loaded first in a child process with these limits (LibTorch's
/// loader can crash, exhaust memory or read past a truncated tensor record on a damaged file);
/// only a file that passes there is loaded in the process itself.
/// `accumlab-engine check-model FILE SAMPLE` is that child.
inline constexpr const char* kCheckModelCommand = "check-model";
/// The child's resident anonymous memory (its heap, not its libraries' code), watched by the
/// parent; past it the child is killed. A watchdog rather than an address-space limit, which
/// AddressSanitizer's shadow memory does not fit in.
inline constexpr uint64_t kCheckModelMemory = uint64_t{2} << 30;
/// The child's wall time, after which it is killed.
inline constexpr double kCheckModelTimeoutS = 30;
/// The child's exit codes besides 0 (passed).
inline constexpr int kCheckModelNotLoadable = 2;  ///< the reason is its last stderr line
inline constexpr int kCheckModelOutOfMemory = 3;
inline constexpr int kCheckModelUsage = 64;  ///< a command line the child does not understand

/// One input sample of the dataset a model is checked for: the forward pass of the check runs
/// on a batch of one such sample.
struct ModelSample {
  std::vector<int64_t> shape;  ///< one sample's shape, without the batch dimension
  bool tokens = false;         ///< byte tokens (int64, 0–255) instead of floating features
};

/// The sample as the child's SAMPLE argument: "float:1x8x8" or "tokens:40".
std::string sampleArgument(const ModelSample& sample);

/// The child's side: loads `path` with LibTorch's loader in this process (no child of its
/// own), checks that every tensor lies inside its record and that two forward passes of the
/// sample `sample_argument` (sampleArgument's text) give the same bits, and returns the exit
/// code: 0, kCheckModelNotLoadable (with one sentence on stderr), kCheckModelOutOfMemory or
/// kCheckModelUsage.
int checkModelHere(const std::string& path, const std::string& sample_argument);

/// Sets the program that runs `check-model FILE SAMPLE` ("" restores the default:
/// accumlab-engine beside this program, in ../libexec/accumlab/, or in ../cli/ of a build
/// tree). For tests, whose binaries have no engine beside them.
void setModelCheckProgram(const std::string& program);

/// Checks `path` for `sample` in the child; throws InputError with one sentence naming the
/// file when it does not pass there (the loader's reason, a tensor outside its record, two
/// forward passes that differ, a crash, out of memory, out of time) or when the child cannot
/// be started. A file already checked unchanged for the same sample is not checked again.
void checkModelInChild(const std::string& path, const ModelSample& sample);

}  // namespace accumlab
