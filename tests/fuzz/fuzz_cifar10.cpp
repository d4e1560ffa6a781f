// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer harness of the CIFAR-10 binary reader: the input is the folder's one training
// batch. Any input must load or be rejected with an InputError; every other exception, crash
// or sanitizer report is a finding.
#include <cstddef>
#include <cstdint>

#include "accumlab/input_error.h"
#include "data/cifar10_reader.h"
#include "fuzz_input.h"

namespace {
constexpr double kValFraction = 0.1;
constexpr uint64_t kSeed = 1;
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  accumlab::fuzz::writeInput("data_batch_1.bin", data, size);
  try {
    const accumlab::Dataset ds =
        accumlab::loadCifar10Folder(accumlab::fuzz::scratchDir(), kValFraction, kSeed);
    if (ds.trainSize() < 1 || ds.train_x.size(1) != 3) __builtin_trap();
  } catch (const accumlab::InputError&) {
  }
  return 0;
}
