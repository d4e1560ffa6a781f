// SPDX-License-Identifier: GPL-3.0-or-later
#include "train/kept_weights.h"

#include <sstream>

#include "accumlab/format_bytes.h"
#include "accumlab/input_error.h"

namespace accumlab {

ArmWeights keptWeights(ArmKind arm, Model& model) {
  std::ostringstream out;
  try {
    model.saveScripted(out);
  } catch (const InputError&) {
    throw;
  } catch (const std::exception& e) {
    const std::string what = e.what();
    throw InputError("model '" + model.spec() + "' cannot be written as TorchScript (" +
                     what.substr(0, what.find('\n')) + ")");
  }
  ArmWeights w;
  w.arm = arm;
  w.data = out.str();
  if (static_cast<int64_t>(w.data.size()) > kMaxKeptWeightBytes) {
    throw InputError("the model's weights take " +
                     formatBytes(static_cast<int64_t>(w.data.size())) + ", more than the " +
                     formatBytes(kMaxKeptWeightBytes) + " a run keeps in its store");
  }
  return w;
}

}  // namespace accumlab
