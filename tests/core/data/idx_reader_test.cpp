// SPDX-License-Identifier: GPL-3.0-or-later
// IDX (MNIST-style) files: gzipped or not, every kind of broken file is one clear InputError.
#include "data/idx_reader.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "accumlab/input_error.h"
#include "data/dataset_factory.h"
#include "temp_files.h"

namespace accumlab {
namespace {

using testing::Bytes;
using testing::TempDir;

Bytes idxBytes(std::vector<uint32_t> dims, const Bytes& data, uint8_t type = 0x08) {
  Bytes b = {0, 0, type, static_cast<uint8_t>(dims.size())};
  for (uint32_t d : dims) {
    for (int shift = 24; shift >= 0; shift -= 8) b.push_back(static_cast<uint8_t>(d >> shift));
  }
  b.insert(b.end(), data.begin(), data.end());
  return b;
}

// n images of rows x cols whose pixel k of image i is (7i + k) mod 256.
Bytes imageBytes(uint32_t n, uint32_t rows, uint32_t cols) {
  Bytes data(n * rows * cols);
  for (uint32_t i = 0; i < n; ++i) {
    for (uint32_t k = 0; k < rows * cols; ++k) data[i * rows * cols + k] = (7 * i + k) % 256;
  }
  return idxBytes({n, rows, cols}, data);
}

Bytes labelBytes(const Bytes& labels) {
  return idxBytes({static_cast<uint32_t>(labels.size())}, labels);
}

// Writes a folder with `train` and (if > 0) `test` images of 3x4 and labels i mod 3.
void writeFolder(const TempDir& dir, uint32_t train, uint32_t test, bool gz) {
  auto write = [&](const std::string& name, const Bytes& b) {
    gz ? testing::writeGz(dir / (name + ".gz"), b) : testing::writeFile(dir / name, b);
  };
  auto labels = [](uint32_t n) {
    Bytes l(n);
    for (uint32_t i = 0; i < n; ++i) l[i] = i % 3;
    return l;
  };
  write("train-images-idx3-ubyte", imageBytes(train, 3, 4));
  write("train-labels-idx1-ubyte", labelBytes(labels(train)));
  if (test > 0) {
    write("t10k-images-idx3-ubyte", imageBytes(test, 3, 4));
    write("t10k-labels-idx1-ubyte", labelBytes(labels(test)));
  }
}

// Runs `f` and checks that it throws an InputError whose message contains `part`.
template <typename F>
void expectInputError(F f, const std::string& part) {
  try {
    f();
    ADD_FAILURE() << "no InputError; expected one containing '" << part << "'";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << "not one line: " << e.what();
  }
}

TEST(IdxReader, GzippedAndPlainFilesReadAlike) {
  TempDir dir;
  testing::writeFile(dir / "plain", imageBytes(5, 3, 4));
  testing::writeGz(dir / "packed.gz", imageBytes(5, 3, 4));
  torch::Tensor plain = readIdx(dir / "plain", 3);
  torch::Tensor packed = readIdx(dir / "packed.gz", 3);
  ASSERT_EQ(plain.sizes(), (std::vector<int64_t>{5, 3, 4}));
  EXPECT_EQ(plain.scalar_type(), torch::kUInt8);
  EXPECT_TRUE(plain.equal(packed));
  EXPECT_EQ(plain[2][1][3].item<int>(), (7 * 2 + 1 * 4 + 3) % 256);
}

TEST(IdxFolder, TestSplitBecomesValidation) {
  TempDir dir;
  writeFolder(dir, 6, 3, /*gz=*/true);
  ExperimentConfig c;
  c.data = "idx:" + dir.path();
  const Dataset ds = loadDataset(c);
  EXPECT_EQ(ds.trainSize(), 6);
  EXPECT_EQ(ds.valSize(), 3);
  EXPECT_EQ(ds.sample_shape, (std::vector<int64_t>{1, 3, 4}));
  EXPECT_EQ(ds.num_outputs, 3);
  EXPECT_EQ(ds.train_x.scalar_type(), torch::kUInt8);
  // Test images keep their file order; pixels reach the model scaled to [0, 1].
  torch::Tensor v = ds.valInputs(1, 2, torch::kFloat32, torch::kCPU);
  EXPECT_NEAR(v[0][0][0][1].item<float>(), (7.0 + 1.0) / 255.0, 1e-7);
  EXPECT_EQ(ds.val_y[2].item<int64_t>(), 2);
}

TEST(IdxFolder, WithoutTestFilesHoldsOutASeededFraction) {
  TempDir dir;
  writeFolder(dir, 10, 0, /*gz=*/false);
  ExperimentConfig c;
  c.data = "idx:" + dir.path();
  c.val_fraction = 0.2;
  const Dataset a = loadDataset(c);
  const Dataset b = loadDataset(c);
  c.seed = 7;
  const Dataset other = loadDataset(c);
  EXPECT_EQ(a.trainSize(), 8);
  EXPECT_EQ(a.valSize(), 2);
  EXPECT_TRUE(a.val_x.equal(b.val_x));
  EXPECT_FALSE(a.val_x.equal(other.val_x));
}

TEST(IdxReader, BrokenFilesAreInputErrors) {
  TempDir dir;
  const std::string f = dir / "f";
  testing::writeFile(f, {});
  expectInputError([&] { readIdx(f, 3); }, "is empty");

  Bytes gz = testing::gzBytes(imageBytes(50, 8, 8), dir / "scratch");
  gz.resize(gz.size() / 2);
  testing::writeFile(f, gz);
  expectInputError([&] { readIdx(f, 3); }, "truncated gzip");

  Bytes corrupt = testing::gzBytes(imageBytes(50, 8, 8), dir / "scratch");
  for (size_t i = 12; i < corrupt.size(); ++i) corrupt[i] = static_cast<uint8_t>(i * 31);
  testing::writeFile(f, corrupt);
  expectInputError([&] { readIdx(f, 3); }, "gzip");

  testing::writeGz(f, Bytes{'h', 'e', 'l', 'l', 'o', ' ', 'w', 'o', 'r', 'l', 'd'});
  expectInputError([&] { readIdx(f, 3); }, "is not an IDX file");

  testing::writeFile(f, labelBytes({1, 2, 3}));
  expectInputError([&] { readIdx(f, 3); }, "has 1 dimension(s)");

  testing::writeFile(f, idxBytes({2, 2, 2}, Bytes(8 * 4), 0x0D));
  expectInputError([&] { readIdx(f, 3); }, "element type 0x0d");

  Bytes short_data = imageBytes(5, 3, 4);
  short_data.pop_back();
  testing::writeFile(f, short_data);
  expectInputError([&] { readIdx(f, 3); }, "announces 5x3x4");
  testing::writeGz(f, short_data);
  expectInputError([&] { readIdx(f, 3); }, "ends after 75 bytes");

  Bytes long_data = imageBytes(5, 3, 4);
  long_data.push_back(0);
  testing::writeGz(f, long_data);
  expectInputError([&] { readIdx(f, 3); }, "holds more bytes than the 5x3x4 images");

  // A header that promises terabytes must not allocate them.
  testing::writeGz(f, idxBytes({60000, 60000, 60000}, Bytes(100)));
  expectInputError([&] { readIdx(f, 3); }, "announces 60000x60000x60000");

  expectInputError([&] { readIdx(dir / "missing", 3); }, "does not exist");
  expectInputError([&] { readIdx(dir.path(), 3); }, "is a folder; an IDX file must be a file");
}

TEST(IdxFolder, InconsistentFoldersAreInputErrors) {
  TempDir dir;
  writeFolder(dir, 6, 0, false);
  testing::writeFile(dir / "train-labels-idx1-ubyte", labelBytes({0, 1, 2, 0, 1}));
  expectInputError([&] { loadIdxFolder(dir.path(), "x", {}, 0.1, 1); }, "holds 6 images but");

  TempDir sizes;
  writeFolder(sizes, 6, 2, false);
  testing::writeFile(sizes / "t10k-images-idx3-ubyte", imageBytes(2, 4, 4));
  expectInputError([&] { loadIdxFolder(sizes.path(), "x", {}, 0.1, 1); },
                   "both splits need one image size");

  TempDir one_class;
  writeFolder(one_class, 6, 0, false);
  testing::writeFile(one_class / "train-labels-idx1-ubyte", labelBytes(Bytes(6, 4)));
  expectInputError([&] { loadIdxFolder(one_class.path(), "x", {}, 0.1, 1); }, "only one class");

  TempDir no_labels;
  testing::writeFile(no_labels / "train-images-idx3-ubyte", imageBytes(6, 3, 4));
  expectInputError([&] { loadIdxFolder(no_labels.path(), "x", {}, 0.1, 1); },
                   "lacks train-labels-idx1-ubyte");
  expectInputError([&] { loadIdxFolder(no_labels / "nowhere", "x", {}, 0.1, 1); },
                   "does not exist");
}

TEST(FashionMnist, LoadsTheDebianPackageFiles) {
  if (!std::filesystem::exists(std::string(kFashionMnistDir) + "/train-images-idx3-ubyte.gz")) {
    GTEST_SKIP() << "dataset-fashion-mnist is not installed";
  }
  ExperimentConfig c;
  c.data = "fashion-mnist";
  const Dataset ds = loadDataset(c);
  EXPECT_EQ(ds.trainSize(), 60000);
  EXPECT_EQ(ds.valSize(), 10000);
  EXPECT_EQ(ds.sample_shape, (std::vector<int64_t>{1, 28, 28}));
  EXPECT_EQ(ds.train_x.scalar_type(), torch::kUInt8);
  EXPECT_TRUE(ds.train_x.is_contiguous());
  ASSERT_EQ(ds.class_names.size(), 10u);
  EXPECT_EQ(ds.class_names[9], "Ankle boot");
  // Fashion-MNIST is balanced: 6000 training and 1000 test images per class.
  EXPECT_TRUE(torch::bincount(ds.train_y).eq(6000).all().item<bool>());
  EXPECT_TRUE(torch::bincount(ds.val_y).eq(1000).all().item<bool>());
  // Real images, not zeros: the mean pixel of Fashion-MNIST's training set is 72.94.
  const double mean_pixel = static_cast<double>(ds.train_x.sum(torch::kLong).item<int64_t>()) /
                            static_cast<double>(ds.train_x.numel());
  EXPECT_NEAR(mean_pixel, 72.94, 0.01);
}

}  // namespace
}  // namespace accumlab

namespace accumlab {
namespace {

// Inputs the IDX fuzzer (tests/fuzz/fuzz_idx.cpp) found, kept as they were found.
std::string idxFinding(const std::string& name) {
  return std::string(ACCUMLAB_SOURCE_DIR) + "/tests/core/data/fuzz_findings/" + name;
}

TEST(IdxReader, DimensionsWhoseProductOverflowsAreInputErrors) {
  // 0x60000000 x 0x02000000 x 0x03000000 = 9 * 2^78: 0 in 64 bits, which passed the size
  // check and reached torch::empty.
  const std::string f = idxFinding("idx-dims-product-overflows");
  try {
    readIdx(f, 3);
    FAIL() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              f + "'s IDX header announces 1610612736x33554432x50331648 = more than 2^64 bytes "
                  "of images, but the file holds only 35 bytes");
  }
}

}  // namespace
}  // namespace accumlab
