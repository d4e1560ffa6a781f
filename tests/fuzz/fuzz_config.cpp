// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer harness of the JSON experiment config: configFromJson, then validateConfig, and
// for a valid config the round trip through configToJson must give the same config back.
// Bad input must be an InputError; every other exception, crash or sanitizer report is a
// finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "accumlab/experiment_config.h"
#include "accumlab/input_error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  accumlab::ExperimentConfig config;
  try {
    config = accumlab::configFromJson(text, "config file fuzz.json");
    accumlab::validateConfig(config);
  } catch (const accumlab::InputError&) {
    return 0;
  }
  const std::string once = accumlab::configToJson(config);
  const std::string twice =
      accumlab::configToJson(accumlab::configFromJson(once, "the written config"));
  if (once != twice) __builtin_trap();
  return 0;
}
