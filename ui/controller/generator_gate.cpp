// SPDX-License-Identifier: GPL-3.0-or-later
#include "controller/generator_gate.h"

namespace accumlab::ui {

std::mutex& globalGeneratorGate() {
  static std::mutex gate;
  return gate;
}

}  // namespace accumlab::ui
