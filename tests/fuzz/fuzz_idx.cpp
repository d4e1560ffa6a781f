// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer harness of the IDX reader (gzipped or not): any input must load or be rejected
// with an InputError; every other exception, crash or sanitizer report is a finding.
#include <cstddef>
#include <cstdint>

#include "accumlab/input_error.h"
#include "data/idx_reader.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // The fourth byte of a plain IDX file is its dimension count: read labels (1) or images (3)
  // as the input announces, so that both paths of the reader are reached.
  const int dims = size >= 4 && data[3] == 1 ? 1 : 3;
  const std::string path = accumlab::fuzz::writeInput("input-idx-ubyte", data, size);
  try {
    const torch::Tensor t = accumlab::readIdx(path, dims);
    if (t.dim() != dims) __builtin_trap();  // the reader promised this many dimensions
  } catch (const accumlab::InputError&) {
  }
  return 0;
}
