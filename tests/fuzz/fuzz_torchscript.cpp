// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer harness of the TorchScript loader's checks: the input is the model file of
// `torchscript:FILE.pt`. Loading it and making one replica must succeed or be an InputError;
// every other exception, crash or sanitizer report is a finding. It loads in this process, as
// the child of the app's and the CLI's check does (makeTorchScriptFactory would fork that
// child for every input and hide LibTorch's crashes from the fuzzer).
#include <cstddef>
#include <cstdint>

#include "accumlab/input_error.h"
#include "fuzz_input.h"
#include "models/torchscript_model.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = accumlab::fuzz::writeInput("model.pt", data, size);
  try {
    const auto factory = accumlab::makeTorchScriptFactoryHere("torchscript:" + path);
    if (!factory || !factory->create()) __builtin_trap();
  } catch (const accumlab::InputError&) {
  }
  return 0;
}
