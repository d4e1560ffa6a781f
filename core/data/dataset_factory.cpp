// SPDX-License-Identifier: GPL-3.0-or-later
#include "data/dataset_factory.h"

#include <filesystem>

#include "accumlab/input_error.h"
#include "accumlab/integer_list.h"
#include "data/cifar10_reader.h"
#include "data/csv_reader.h"
#include "data/idx_reader.h"
#include "data/text_reader.h"

namespace accumlab {
namespace {

constexpr int64_t kSpiralsSamples = 6000;
constexpr int64_t kBlobsSamples = 20000;
constexpr int64_t kBlobsDim = 32;
constexpr int64_t kLinregSamples = 20000;
constexpr int64_t kLinregDim = 10;

// "1x28x28" → {1, 28, 28}
std::vector<int64_t> parseShape(const std::string& spec, const std::string& text) {
  auto shape = parsePositiveIntegers(
      text, 'x', "dataset '" + spec + "': the sample shape must look like 32 or 1x28x28");
  if (shape.empty()) throw InputError("dataset '" + spec + "': the sample shape is empty");
  return shape;
}

}  // namespace

Dataset loadDataset(const ExperimentConfig& config, LinregTruth* truth, const ReadStop& stop) {
  const std::string& spec = config.data;
  const auto colon = spec.find(':');
  const std::string kind = spec.substr(0, colon);
  const std::string arg = colon == std::string::npos ? "" : spec.substr(colon + 1);
  auto samples = [&](int64_t fallback) {
    return config.synthetic_samples > 0 ? config.synthetic_samples : fallback;
  };
  if (kind == "spirals" && arg.empty()) {
    return makeSpirals(samples(kSpiralsSamples), config.val_fraction, config.seed);
  }
  if (kind == "blobs") {
    const auto shape = arg.empty() ? std::vector<int64_t>{kBlobsDim} : parseShape(spec, arg);
    return makeBlobs(samples(kBlobsSamples), shape, config.val_fraction, config.seed);
  }
  if (kind == "linreg") {
    const auto shape = arg.empty() ? std::vector<int64_t>{kLinregDim} : parseShape(spec, arg);
    if (shape.size() != 1) throw InputError("dataset '" + spec + "': linreg takes one dimension");
    return makeLinreg(samples(kLinregSamples), shape[0], config.val_fraction, config.seed, truth);
  }
  if (kind == "csv" && !arg.empty()) {
    return loadCsv(arg, config.label, config.task, config.val_fraction, config.seed, stop);
  }
  if (kind == "text" && !arg.empty()) return loadTextFile(arg, config, stop);
  if (kind == "fortunes" && arg.empty()) return loadFortunes(kFortunesDir, config, stop);
  Dataset ds;
  if (kind == "fashion-mnist" && arg.empty()) {
    if (!std::filesystem::is_directory(kFashionMnistDir)) {
      throw InputError(std::string("Fashion-MNIST is not installed in ") + kFashionMnistDir +
                       ": install the Debian package dataset-fashion-mnist (scripts/setup does) "
                       "or give its folder with --data idx:DIR");
    }
    ds = loadIdxFolder(kFashionMnistDir, "fashion-mnist", fashionMnistClassNames(),
                       config.val_fraction, config.seed, stop);
  } else if (kind == "idx" && !arg.empty()) {
    ds = loadIdxFolder(arg, spec, {}, config.val_fraction, config.seed, stop);
  } else if (kind == "cifar10" && !arg.empty()) {
    ds = loadCifar10Folder(arg, config.val_fraction, config.seed, stop);
  } else {
    throw InputError("unknown dataset '" + spec +
                     "': use spirals, blobs, blobs:1x28x28, linreg, fashion-mnist, idx:DIR, "
                     "cifar10:DIR, csv:FILE, fortunes or text:FILE");
  }
  if (config.task == Task::kRegression) {
    throw InputError("dataset '" + spec + "' is a classification dataset; --task regression " +
                     "applies to CSV files only");
  }
  return ds;
}

}  // namespace accumlab
