// SPDX-License-Identifier: GPL-3.0-or-later
#include "data/cifar10_reader.h"

#include <cstring>
#include <filesystem>
#include <sstream>

#include "accumlab/input_error.h"
#include "data/byte_reader.h"

namespace accumlab {
namespace {

constexpr int64_t kChannels = 3;
constexpr int64_t kSide = 32;
constexpr int64_t kPixels = kChannels * kSide * kSide;
constexpr int64_t kRecordBytes = 1 + kPixels;  // label byte, then the planes R, G, B
constexpr int64_t kClasses = 10;
constexpr int kTrainBatches = 5;
// A batch file holds 10,000 records (30.7 MB); anything far larger is not one.
constexpr uint64_t kMaxBatchBytes = uint64_t{256} << 20;
// batches.meta.txt names ten classes.
constexpr uint64_t kMaxMetaBytes = uint64_t{64} << 10;

struct Records {
  torch::Tensor x;  // uint8 [N, 3, 32, 32]
  torch::Tensor y;  // int64 [N]
};

Records readBatches(const std::vector<std::string>& paths, const ReadStop& stop) {
  std::vector<std::string> files;
  int64_t total = 0;
  for (const auto& path : paths) {
    files.push_back(ByteReader(path, {"a CIFAR-10 batch", kMaxBatchBytes}, stop).readAll());
    const auto n = static_cast<int64_t>(files.back().size());
    if (n % kRecordBytes != 0) {
      throw InputError(path + " is " + std::to_string(n) + " bytes long, not a whole number of " +
                       std::to_string(kRecordBytes) +
                       "-byte CIFAR-10 records (1 label byte + 3x32x32 pixels); the file is "
                       "truncated or not a CIFAR-10 binary batch");
    }
    total += n / kRecordBytes;
  }
  Records r;
  r.x = torch::empty({total, kChannels, kSide, kSide}, torch::kUInt8);
  r.y = torch::empty({total}, torch::kLong);
  uint8_t* px = r.x.data_ptr<uint8_t>();
  int64_t* py = r.y.data_ptr<int64_t>();
  int64_t row = 0;
  for (size_t f = 0; f < files.size(); ++f) {
    const auto* rec = reinterpret_cast<const uint8_t*>(files[f].data());
    const auto n = static_cast<int64_t>(files[f].size()) / kRecordBytes;
    for (int64_t i = 0; i < n; ++i, ++row, rec += kRecordBytes) {
      if (rec[0] >= kClasses) {
        throw InputError(paths[f] + " record " + std::to_string(i) + " has label " +
                         std::to_string(rec[0]) +
                         ", but CIFAR-10 labels are 0 to 9 "
                         "(CIFAR-100's two-label format is not supported)");
      }
      py[row] = rec[0];
      std::memcpy(px + row * kPixels, rec + 1, kPixels);
    }
    std::string().swap(files[f]);  // free each file as soon as it is copied
  }
  return r;
}

std::vector<std::string> classNames(const std::string& dir) {
  static const std::vector<std::string> kDefaultNames = {
      "airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck"};
  std::vector<std::string> names;
  const std::string path = dir + "/batches.meta.txt";
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return kDefaultNames;
  std::istringstream meta(readWholeFile(path, {"CIFAR-10's class names", kMaxMetaBytes}));
  for (std::string line; std::getline(meta, line);) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (!line.empty()) names.push_back(line);
  }
  if (static_cast<int64_t>(names.size()) == kClasses) return names;
  return kDefaultNames;
}

}  // namespace

Dataset loadCifar10Folder(const std::string& dir_arg, double val_fraction, uint64_t seed,
                          const ReadStop& stop) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(dir_arg, ec)) throw InputError("CIFAR-10 folder " + dir_arg + " does not exist");
  if (!fs::is_directory(dir_arg, ec)) {
    throw InputError(dir_arg + " is not a folder; cifar10: takes the folder of the binary batches");
  }
  std::string dir = dir_arg;
  if (!fs::exists(dir + "/data_batch_1.bin") && fs::is_directory(dir + "/cifar-10-batches-bin")) {
    dir += "/cifar-10-batches-bin";
  }
  std::vector<std::string> train;
  for (int i = 1; i <= kTrainBatches; ++i) {
    const std::string path = dir + "/data_batch_" + std::to_string(i) + ".bin";
    if (fs::exists(path, ec)) train.push_back(path);
  }
  if (train.empty()) {
    throw InputError("folder " + dir_arg + " holds no data_batch_1.bin … data_batch_5.bin; " +
                     "cifar10: needs the binary version of CIFAR-10 (cifar-10-binary.tar.gz)");
  }
  Dataset ds;
  ds.name = "cifar10";
  ds.task = Task::kClassification;
  ds.num_outputs = kClasses;
  ds.scale = 1.0 / 255.0;
  ds.sample_shape = {kChannels, kSide, kSide};
  ds.class_names = classNames(dir);
  Records tr = readBatches(train, stop);
  const std::string test = dir + "/test_batch.bin";
  if (fs::exists(test, ec)) {
    Records te = readBatches({test}, stop);
    ds.train_x = tr.x;
    ds.train_y = tr.y;
    ds.val_x = te.x;
    ds.val_y = te.y;
  } else {
    splitTrainVal(ds, tr.x, tr.y, val_fraction, seed);
  }
  requireTwoClasses(ds.train_y, train.front());
  return ds;
}

}  // namespace accumlab
