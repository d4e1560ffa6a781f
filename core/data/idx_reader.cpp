// SPDX-License-Identifier: GPL-3.0-or-later
#include "data/idx_reader.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>

#include "accumlab/input_error.h"
#include "data/byte_reader.h"

namespace accumlab {
namespace {

// IDX magic: two zero bytes, the element type, the number of dimensions.
constexpr uint8_t kIdxUnsignedByte = 0x08;
// The largest ratio deflate reaches; bounds what a .gz of a given size can hold, so that a
// lying header cannot make us allocate terabytes before the short read is noticed.
constexpr uint64_t kMaxDeflateRatio = 1032;
constexpr double kPixelScale = 1.0 / 255.0;
// The most content one IDX file may hold (EMNIST's largest, byclass, holds 547 MB).
constexpr uint64_t kMaxIdxBytes = uint64_t{2} << 30;

std::string hexBytes(const uint8_t* b, size_t n) {
  std::string s;
  char buf[4];
  for (size_t i = 0; i < n; ++i) {
    std::snprintf(buf, sizeof buf, "%02x", b[i]);
    s += (i ? " " : "") + std::string(buf);
  }
  return s;
}

std::string dimsText(const std::vector<int64_t>& dims) {
  std::string s;
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "x" : "") + std::to_string(dims[i]);
  return s;
}

const char* kindOf(int dims) { return dims == 1 ? "labels" : "images"; }

// Finds the one file in `dir` whose name holds `split` ("train", "t10k", "test") followed by
// "-images"/"-labels" and the IDX suffix; "" when there is none.
std::string findIdxFile(const std::string& dir, const std::vector<std::string>& splits,
                        const std::string& kind, const std::string& suffix) {
  namespace fs = std::filesystem;
  std::vector<std::string> found;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    const std::string file = entry.path().filename().string();
    if (file.find(suffix) == std::string::npos) continue;
    for (const auto& split : splits) {
      if (file.find(split + "-" + kind) != std::string::npos) {
        found.push_back(entry.path().string());
        break;
      }
    }
  }
  std::sort(found.begin(), found.end());
  if (found.size() > 1) {
    throw InputError("folder " + dir + " holds several " + splits.front() + " " + kind +
                     " files (" + found[0] + ", " + found[1] +
                     "); point idx: at a folder with one set of IDX files");
  }
  return found.empty() ? "" : found.front();
}

}  // namespace

const std::vector<std::string>& fashionMnistClassNames() {
  static const std::vector<std::string> kNames = {"T-shirt/top", "Trouser",   "Pullover", "Dress",
                                                  "Coat",        "Sandal",    "Shirt",    "Sneaker",
                                                  "Bag",         "Ankle boot"};
  return kNames;
}

torch::Tensor readIdx(const std::string& path, int expected_dims, const ReadStop& stop) {
  ByteReader in(path, InputKind{"an IDX file", kMaxIdxBytes}, stop);
  std::array<uint8_t, 4> magic{};
  const size_t got = in.read(magic.data(), magic.size());
  const std::array<uint8_t, 4> want = {0, 0, kIdxUnsignedByte, static_cast<uint8_t>(expected_dims)};
  if (got < magic.size() || magic[0] != 0 || magic[1] != 0) {
    throw InputError(path + " is not an IDX file: it starts with bytes '" +
                     hexBytes(magic.data(), got) + "', expected '" + hexBytes(want.data(), 4) +
                     "' (unsigned-byte " + kindOf(expected_dims) + ")");
  }
  if (magic[2] != kIdxUnsignedByte) {
    throw InputError(path + " holds IDX element type 0x" + hexBytes(&magic[2], 1) +
                     ", but only unsigned-byte IDX files (type 0x08) are supported");
  }
  if (magic[3] != expected_dims) {
    throw InputError(path + " has " + std::to_string(magic[3]) + " dimension(s) (IDX magic '" +
                     hexBytes(magic.data(), 4) + "'), but " + kindOf(expected_dims) + " need " +
                     std::to_string(expected_dims) + " (magic '" + hexBytes(want.data(), 4) + "')");
  }
  std::vector<int64_t> dims(expected_dims);
  for (int i = 0; i < expected_dims; ++i) {
    uint8_t be[4];
    in.readExactly(be, 4, "the IDX header's dimension sizes");
    dims[i] = (int64_t{be[0]} << 24) | (int64_t{be[1]} << 16) | (int64_t{be[2]} << 8) | be[3];
    if (dims[i] == 0) {
      throw InputError(path + "'s IDX header has a dimension of size 0 (" + dimsText(dims) + ")");
    }
  }
  const uint64_t header = 4 + 4 * static_cast<uint64_t>(expected_dims);
  const uint64_t file_bytes = in.fileSize();
  const uint64_t can_hold = in.compressed() ? file_bytes * kMaxDeflateRatio
                                            : (file_bytes > header ? file_bytes - header : 0);
  // Three sizes below 2^32 can overflow 64 bits: such a product is more than any file holds.
  uint64_t bytes = 1;
  bool overflow = false;
  for (const int64_t d : dims) {
    overflow = overflow || __builtin_mul_overflow(bytes, static_cast<uint64_t>(d), &bytes);
  }
  if (!overflow && bytes > kMaxIdxBytes) {
    throw InputError(path + "'s IDX header announces " + dimsText(dims) + " = " +
                     std::to_string(bytes) + " bytes of " + kindOf(expected_dims) +
                     "; an IDX file may hold at most " + std::to_string(kMaxIdxBytes >> 20) +
                     " MiB");
  }
  if (overflow || bytes > can_hold) {
    throw InputError(path + "'s IDX header announces " + dimsText(dims) + " = " +
                     (overflow ? "more than 2^64" : std::to_string(bytes)) + " bytes of " +
                     kindOf(expected_dims) + ", but the file holds only " +
                     std::to_string(file_bytes) + " bytes");
  }
  torch::Tensor t = torch::empty(dims, torch::TensorOptions().dtype(torch::kUInt8));
  in.readExactly(t.data_ptr<uint8_t>(), bytes,
                 "the " + dimsText(dims) + " " + kindOf(expected_dims) + " of its header");
  if (!in.atEnd()) {
    throw InputError(path + " holds more bytes than the " + dimsText(dims) + " " +
                     kindOf(expected_dims) + " its IDX header announces (" +
                     std::to_string(header + bytes) + " bytes expected)");
  }
  return t;
}

Dataset loadIdxFolder(const std::string& dir, const std::string& name,
                      std::vector<std::string> class_names, double val_fraction, uint64_t seed,
                      const ReadStop& stop) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(dir, ec)) throw InputError("IDX folder " + dir + " does not exist");
  if (!fs::is_directory(dir, ec)) throw InputError(dir + " is not a folder; idx: takes a folder");
  const std::string train_images = findIdxFile(dir, {"train"}, "images", "idx3-ubyte");
  const std::string train_labels = findIdxFile(dir, {"train"}, "labels", "idx1-ubyte");
  const std::string test_images = findIdxFile(dir, {"t10k", "test"}, "images", "idx3-ubyte");
  const std::string test_labels = findIdxFile(dir, {"t10k", "test"}, "labels", "idx1-ubyte");
  if (train_images.empty() || train_labels.empty()) {
    throw InputError(
        "folder " + dir + " lacks " +
        (train_images.empty() ? "train-images-idx3-ubyte" : "train-labels-idx1-ubyte") +
        "[.gz]; an IDX folder needs train-images-idx3-ubyte and " +
        "train-labels-idx1-ubyte (t10k-… for the test split), gzipped or not");
  }
  if (test_images.empty() != test_labels.empty()) {
    throw InputError("folder " + dir + " has " +
                     (test_images.empty() ? "test labels" : "test images") + " but no " +
                     (test_images.empty() ? "test images" : "test labels") +
                     "; give both t10k files or neither");
  }

  // Reads a pair and checks that images and labels agree in count.
  auto readPair = [&stop](const std::string& images_path, const std::string& labels_path) {
    torch::Tensor images = readIdx(images_path, 3, stop);
    torch::Tensor labels = readIdx(labels_path, 1, stop);
    if (images.size(0) != labels.size(0)) {
      throw InputError(images_path + " holds " + std::to_string(images.size(0)) + " images but " +
                       labels_path + " holds " + std::to_string(labels.size(0)) +
                       " labels; the two files must have the same count");
    }
    // [N, rows, cols] → [N, 1, rows, cols]: one channel, no copy.
    return std::make_pair(images.unsqueeze(1), labels.to(torch::kLong));
  };

  Dataset ds;
  ds.name = name;
  ds.task = Task::kClassification;
  ds.scale = kPixelScale;
  auto [x, y] = readPair(train_images, train_labels);
  ds.sample_shape = {x.size(1), x.size(2), x.size(3)};
  int64_t max_label = y.max().item<int64_t>();
  if (!test_images.empty()) {
    auto [vx, vy] = readPair(test_images, test_labels);
    if (!vx.sizes().slice(1).equals(x.sizes().slice(1))) {
      throw InputError("test images " + test_images + " are " + dimsText({vx.size(2), vx.size(3)}) +
                       " but training images " + train_images + " are " +
                       dimsText({x.size(2), x.size(3)}) + "; both splits need one image size");
    }
    max_label = std::max(max_label, vy.max().item<int64_t>());
    ds.train_x = x;
    ds.train_y = y;
    ds.val_x = vx;
    ds.val_y = vy;
  } else {
    splitTrainVal(ds, x, y, val_fraction, seed);
  }
  ds.num_outputs = max_label + 1;
  if (static_cast<int64_t>(class_names.size()) != ds.num_outputs) class_names.clear();
  ds.class_names = std::move(class_names);
  requireTwoClasses(ds.train_y, train_labels);
  return ds;
}

}  // namespace accumlab
