// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer harness of the TorchScript model check: the input is the model file of
// `torchscript:FILE.pt`. What the check's child does (load, every tensor inside its record,
// one replica, two forward passes of a 64-feature sample) must pass or be an InputError;
// every other exception, crash or sanitizer report is a finding. It runs in this process, as
// that child does (makeTorchScriptFactory would fork the child for every input and hide
// LibTorch's crashes from the fuzzer).
#include <cstddef>
#include <cstdint>

#include "accumlab/input_error.h"
#include "fuzz_input.h"
#include "models/torchscript_check_child.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = accumlab::fuzz::writeInput("model.pt", data, size);
  try {
    accumlab::verifyTorchScriptHere(path, accumlab::ModelSample{{64}, false});
  } catch (const accumlab::InputError&) {
  }
  return 0;
}
