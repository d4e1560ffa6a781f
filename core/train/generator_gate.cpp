// SPDX-License-Identifier: GPL-3.0-or-later
#include "accumlab/generator_gate.h"

namespace accumlab {

std::mutex& globalGeneratorGate() {
  static std::mutex gate;
  return gate;
}

}  // namespace accumlab
