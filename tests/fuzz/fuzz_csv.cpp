// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer harness of the CSV reader: any input must load or be rejected with an
// InputError; every other exception, crash or sanitizer report is a finding.
#include <cstddef>
#include <cstdint>

#include "accumlab/input_error.h"
#include "data/csv_reader.h"
#include "fuzz_input.h"

namespace {
// The CLI's default validation fraction and seed.
constexpr double kValFraction = 0.1;
constexpr uint64_t kSeed = 1;
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = accumlab::fuzz::writeInput("input.csv", data, size);
  // The label column as the CLI takes it: by default the last one, or named, or an index;
  // the first byte picks one of the three and the task, so all paths are reached.
  const uint8_t mode = size > 0 ? data[0] : 0;
  const char* labels[] = {"", "label", "0"};
  const accumlab::Task tasks[] = {accumlab::Task::kAuto, accumlab::Task::kClassification,
                                  accumlab::Task::kRegression};
  try {
    const accumlab::Dataset ds =
        accumlab::loadCsv(path, labels[mode % 3], tasks[(mode / 3) % 3], kValFraction, kSeed);
    if (ds.trainSize() < 1 || ds.train_x.size(1) != ds.sample_shape[0]) __builtin_trap();
  } catch (const accumlab::InputError&) {
  }
  return 0;
}
