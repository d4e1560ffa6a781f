// SPDX-License-Identifier: GPL-3.0-or-later
// CIFAR-10 binary batches: layout, splits and wrong files.
#include "data/cifar10_reader.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>

#include "accumlab/input_error.h"
#include "input_error_message.h"
#include "temp_files.h"

namespace accumlab {
namespace {

using testing::Bytes;
using testing::TempDir;

constexpr size_t kRecord = 3073;

// `n` records starting at record number `first`: label (first + i) mod 10, pixel k = (i + k) mod
// 256.
Bytes records(size_t first, size_t n) {
  Bytes b;
  for (size_t i = first; i < first + n; ++i) {
    b.push_back(static_cast<uint8_t>(i % 10));
    for (size_t k = 0; k < kRecord - 1; ++k) b.push_back(static_cast<uint8_t>((i + k) % 256));
  }
  return b;
}

using testing::messageOf;

TEST(Cifar10Reader, ReadsBatchesInOrderAsUint8Images) {
  TempDir dir;
  testing::writeFile(dir / "data_batch_1.bin", records(0, 4));
  testing::writeFile(dir / "data_batch_2.bin", records(4, 3));
  testing::writeFile(dir / "test_batch.bin", records(100, 2));
  const Dataset ds = loadCifar10Folder(dir.path(), 0.1, 1);
  EXPECT_EQ(ds.trainSize(), 7);
  EXPECT_EQ(ds.valSize(), 2);
  EXPECT_EQ(ds.sample_shape, (std::vector<int64_t>{3, 32, 32}));
  EXPECT_EQ(ds.train_x.scalar_type(), torch::kUInt8);
  EXPECT_EQ(ds.num_outputs, 10);
  EXPECT_EQ(ds.class_names.at(0), "airplane");
  // Record 5, channel 1 (green), row 2, column 3 is pixel 1024 + 64 + 3 of the record.
  EXPECT_EQ(ds.train_x[5][1][2][3].item<int>(), (5 + 1024 + 64 + 3) % 256);
  EXPECT_EQ(ds.train_y[5].item<int64_t>(), 5);
  EXPECT_EQ(ds.val_y[1].item<int64_t>(), 1);
  EXPECT_NEAR(ds.scale, 1.0 / 255.0, 1e-15);
}

TEST(Cifar10Reader, FindsTheArchiveSubfolderAndItsClassNames) {
  TempDir dir;
  std::filesystem::create_directory(dir / "cifar-10-batches-bin");
  testing::writeFile(dir / "cifar-10-batches-bin/data_batch_1.bin", records(0, 10));
  testing::writeText(dir / "cifar-10-batches-bin/batches.meta.txt",
                     "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n\n");
  const Dataset ds = loadCifar10Folder(dir.path(), 0.2, 1);
  EXPECT_EQ(ds.trainSize(), 8);
  EXPECT_EQ(ds.valSize(), 2);
  EXPECT_EQ(ds.class_names.at(9), "j");
}

TEST(Cifar10Reader, WrongFilesAreInputErrors) {
  TempDir dir;
  Bytes cut = records(0, 3);
  cut.resize(cut.size() - 100);
  testing::writeFile(dir / "data_batch_1.bin", cut);
  const std::string folder = dir.path();
  EXPECT_NE(messageOf([&] {
              loadCifar10Folder(folder, 0.1, 1);
            }).find("is 9119 bytes long, not a whole number of 3073-byte CIFAR-10 records"),
            std::string::npos);

  Bytes bad_label = records(0, 2);
  bad_label[kRecord] = 12;
  testing::writeFile(dir / "data_batch_1.bin", bad_label);
  EXPECT_NE(messageOf([&] { loadCifar10Folder(folder, 0.1, 1); }).find("record 1 has label 12"),
            std::string::npos);

  testing::writeFile(dir / "data_batch_1.bin", {});
  EXPECT_NE(messageOf([&] { loadCifar10Folder(folder, 0.1, 1); }).find("data_batch_1.bin is empty"),
            std::string::npos);

  TempDir empty;
  EXPECT_NE(
      messageOf([&] { loadCifar10Folder(empty.path(), 0.1, 1); }).find("holds no data_batch_1.bin"),
      std::string::npos);
  EXPECT_NE(messageOf([&] { loadCifar10Folder(empty / "none", 0.1, 1); }).find("does not exist"),
            std::string::npos);
}

}  // namespace
}  // namespace accumlab
