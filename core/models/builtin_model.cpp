// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/builtin_model.h"

#include <functional>
#include <mutex>

#include "accumlab/input_error.h"
#include "accumlab/integer_list.h"
#include "models/scripted_net.h"

namespace accumlab {

BuiltinModel::BuiltinModel(std::shared_ptr<NetImpl> net, std::string spec, bool batch_dependent)
    : net_(std::move(net)), spec_(std::move(spec)), batch_dependent_(batch_dependent) {}

torch::Tensor BuiltinModel::forward(const torch::Tensor& input) { return net_->forward(input); }

std::vector<torch::Tensor> BuiltinModel::parameters() { return net_->parameters(); }

std::vector<torch::Tensor> BuiltinModel::buffers() { return net_->buffers(); }

void BuiltinModel::setTraining(bool training) { net_->train(training); }

void BuiltinModel::to(const torch::Device& device, torch::Dtype dtype) { net_->to(device, dtype); }

std::vector<std::pair<torch::Tensor, torch::Tensor>> BuiltinModel::reluStack() {
  std::vector<std::pair<torch::Tensor, torch::Tensor>> stack;
  if (const auto* mlp = dynamic_cast<const MlpImpl*>(net_.get())) {
    for (const auto& layer : mlp->layers) stack.emplace_back(layer->weight, layer->bias);
  }
  return stack;
}

double BuiltinModel::flopsPerSample() const { return net_->flopsPerSample(); }

CeilingLayer BuiltinModel::ceilingLayer() const { return net_->ceilingLayer(); }

void BuiltinModel::save(const std::string& path) {
  torch::serialize::OutputArchive archive;
  net_->save(archive);
  archive.save_to(path);
}

void BuiltinModel::saveScripted(std::ostream& out) { scriptedNet(*net_, spec_).save(out); }

namespace {

using NetMaker = std::function<std::shared_ptr<NetImpl>()>;

class BuiltinFactory : public ModelFactory {
 public:
  BuiltinFactory(NetMaker make, std::string spec, bool batch_dependent, uint64_t seed)
      : make_(std::move(make)),
        spec_(std::move(spec)),
        batch_dependent_(batch_dependent),
        seed_(seed) {}

  std::unique_ptr<Model> create() override {
    // Every replica is initialised from the same seed, so all arms start identical. The
    // seed and the draws go to the global generator: one model at a time per process, so
    // that Trainers on several threads (the ranks of a data-parallel test) start identical.
    static std::mutex creating;
    std::lock_guard<std::mutex> lock(creating);
    torch::manual_seed(seed_);
    return std::make_unique<BuiltinModel>(make_(), spec_, batch_dependent_);
  }

 private:
  NetMaker make_;
  std::string spec_;
  bool batch_dependent_;
  uint64_t seed_;
};

std::vector<int64_t> parseHidden(const std::string& spec, const std::string& list) {
  return parsePositiveIntegers(
      list, ',', "model '" + spec + "': hidden sizes must be positive integers like mlp:256,128");
}

}  // namespace

std::unique_ptr<ModelFactory> makeBuiltinFactory(const std::string& spec,
                                                 const std::vector<int64_t>& shape, int64_t outputs,
                                                 uint64_t seed, bool text) {
  constexpr const char* kDefaultHidden = "128,128";
  constexpr int64_t kCharEmbedding = 32;
  constexpr int64_t kCharHidden = 64;
  constexpr int64_t kTransformerWidth = 64;
  constexpr int64_t kTransformerHeads = 4;
  constexpr int64_t kTransformerLayers = 2;
  int64_t inputs = 1;
  for (int64_t s : shape) inputs *= s;
  const std::string name = spec.substr(0, spec.find(':'));
  const std::string args =
      spec.find(':') == std::string::npos ? "" : spec.substr(spec.find(':') + 1);
  const bool sequence_model = name == "charlm" || name == "charlm-transformer";
  if (sequence_model && !text) {
    throw InputError("model '" + spec +
                     "' predicts the next byte of text; use it with text "
                     "data (fortunes or text:FILE), or pick mlp, logreg or cnn for this dataset");
  }
  if (text && (name == "logreg" || name == "mlp" || name == "cnn" || name == "cnn_bn")) {
    throw InputError("model '" + spec +
                     "' takes samples of one size, and text data holds "
                     "sequences of bytes: use charlm, charlm-transformer or a TorchScript "
                     "sequence model");
  }
  if (name == "charlm") {
    const auto hidden = parseHidden(spec, args.empty() ? std::to_string(kCharHidden) : args);
    if (hidden.size() != 1) {
      throw InputError("model '" + spec + "': charlm takes one hidden size, like charlm:128");
    }
    const std::string resolved = "charlm:" + std::to_string(hidden[0]);
    return std::make_unique<BuiltinFactory>(
        [=] { return CharGru(outputs, kCharEmbedding, hidden[0]).ptr(); }, resolved, false, seed);
  }
  if (name == "charlm-transformer" && args.empty()) {
    const int64_t positions = shape.empty() ? 1 : shape[0];
    return std::make_unique<BuiltinFactory>(
        [=] {
          return CharTransformer(outputs, kTransformerWidth, kTransformerHeads, kTransformerLayers,
                                 positions)
              .ptr();
        },
        spec, false, seed);
  }
  if (name == "logreg" && args.empty()) {
    return std::make_unique<BuiltinFactory>(
        [=] { return Mlp(inputs, std::vector<int64_t>{}, outputs).ptr(); }, spec, false, seed);
  }
  if (name == "mlp") {
    const auto hidden = parseHidden(spec, args.empty() ? kDefaultHidden : args);
    const std::string resolved = args.empty() ? "mlp:" + std::string(kDefaultHidden) : spec;
    return std::make_unique<BuiltinFactory>([=] { return Mlp(inputs, hidden, outputs).ptr(); },
                                            resolved, false, seed);
  }
  if ((name == "cnn" || name == "cnn_bn") && args.empty()) {
    const bool bn = name == "cnn_bn";
    std::vector<int64_t> chw = shape;
    if (chw.size() == 2) chw.insert(chw.begin(), 1);  // [H, W] images get one channel
    if (chw.size() != 3 || chw[1] < 12 || chw[2] < 12) {
      throw InputError("model '" + spec + "' needs image samples [channels x height x width] " +
                       "of at least 12x12, but the dataset's samples are " + shapeText(shape) +
                       "; use mlp or logreg for this dataset");
    }
    return std::make_unique<BuiltinFactory>(
        [=] { return Cnn(chw[0], chw[1], chw[2], outputs, bn).ptr(); }, spec, bn, seed);
  }
  return nullptr;
}

}  // namespace accumlab
