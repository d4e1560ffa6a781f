// SPDX-License-Identifier: GPL-3.0-or-later
#include "train/model_fit.h"

#include "accumlab/input_error.h"

namespace accumlab {

void checkModelFits(Model& model, const Dataset& data, torch::Dtype dtype, torch::Device device) {
  // A 1-sample dry run: shape mismatches surface here as one clear sentence.
  torch::NoGradGuard no_grad;
  model.setTraining(false);
  torch::Tensor x = data.trainInputs(torch::zeros({1}, torch::kLong), dtype, device);
  torch::Tensor out;
  try {
    out = model.forward(x);
  } catch (const InputError&) {
    throw;  // already a sentence about this model (e.g. a TorchScript forward returning a tuple)
  } catch (const std::exception& e) {
    std::string detail = e.what();
    detail = detail.substr(0, detail.find('\n'));
    throw InputError("model '" + model.spec() + "' cannot take samples of shape " +
                     shapeText(x.sizes().slice(1)) + " from dataset '" + data.name + "' (" +
                     detail + "); pick a model made for this input shape");
  }
  model.setTraining(true);
  if (data.isText()) {
    if (out.dim() != 3 || out.size(0) != 1 || out.size(1) != x.size(1) ||
        out.size(2) != data.num_outputs) {
      throw InputError("model '" + model.spec() + "' outputs " + shapeText(out.sizes()) +
                       " for a sequence of " + shapeText(x.sizes()) +
                       " byte tokens, but text "
                       "data needs [1x" +
                       std::to_string(x.size(1)) + "x" + std::to_string(data.num_outputs) +
                       "] (a logit per byte value at every position); change the model's "
                       "last layer");
    }
    return;
  }
  if (out.dim() != 2 || out.size(0) != 1 || out.size(1) != data.num_outputs) {
    throw InputError(
        "model '" + model.spec() + "' outputs " + shapeText(out.sizes()) +
        " per sample but dataset '" + data.name + "' needs [1x" + std::to_string(data.num_outputs) +
        "] (" +
        (data.task == Task::kClassification ? "one logit per class" : "one value per target") +
        "); change the model's last layer");
  }
}

std::vector<std::string> modelCaveats(Model& model, bool paired) {
  std::vector<std::string> said;
  if (model.batchDependent()) {
    said.push_back("model '" + model.spec() + "' normalises over its batch (BatchNorm)" +
                   (paired ? ": accum normalises each micro-batch of m, big-batch the whole "
                             "m·K, so they train different models and are not expected to match"
                           : ""));
  }
  if (model.stochastic()) {
    said.push_back("model '" + model.spec() + "' has random layers (dropout)" +
                   (paired ? ": every arm draws its own random masks from the seed, so accum and "
                             "big-batch may differ by their masks, not by accumulation"
                           : ": every arm draws its own random masks from the seed"));
  }
  return said;
}

}  // namespace accumlab
