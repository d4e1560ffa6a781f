// SPDX-License-Identifier: GPL-3.0-or-later
#include "accumlab/input_error.h"
#include "models/builtin_model.h"
#include "models/model.h"
#include "models/torchscript_model.h"

namespace accumlab {

std::unique_ptr<ModelFactory> makeModelFactory(const std::string& spec,
                                               const std::vector<int64_t>& sample_shape,
                                               int64_t outputs, uint64_t seed, bool text) {
  if (auto builtin = makeBuiltinFactory(spec, sample_shape, outputs, seed, text)) return builtin;
  if (auto scripted = makeTorchScriptFactory(spec, ModelSample{sample_shape, text})) {
    return scripted;
  }
  throw InputError("unknown model '" + spec +
                   "': use logreg, mlp, mlp:256,128 (hidden sizes), cnn, cnn_bn, charlm, "
                   "charlm:HIDDEN, charlm-transformer or torchscript:FILE.pt");
}

}  // namespace accumlab
