// SPDX-License-Identifier: GPL-3.0-or-later
// CSV datasets: detection of delimiter, header and task; label mapping; standardisation from
// the training split only; a bad cell names file, line and column.
#include "data/csv_reader.h"

#include "accumlab/text_file.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>

#include "accumlab/input_error.h"
#include "input_error_message.h"
#include "temp_files.h"

namespace accumlab {
namespace {

using testing::TempDir;

using testing::messageOf;

// n rows "i,i² mod 7,label(i)".
std::string rows(int n, const std::function<std::string(int)>& label, char delim = ',') {
  std::string s;
  for (int i = 0; i < n; ++i) {
    s += std::to_string(i) + delim + std::to_string(i * i % 7) + delim + label(i) + "\n";
  }
  return s;
}

TEST(CsvReader, HeaderAndTextLabelsByName) {
  TempDir dir;
  testing::writeText(dir / "iris.csv", "species,a,b\n" +
                                           std::string("virginica,1,2\nsetosa,3,4\n") +
                                           "\"versi,color\",5,6\nsetosa,7,8\n");
  const Dataset ds = loadCsv(dir / "iris.csv", "species", Task::kAuto, 0.0, 1);
  EXPECT_EQ(ds.task, Task::kClassification);
  EXPECT_EQ(ds.class_names, (std::vector<std::string>{"setosa", "versi,color", "virginica"}));
  EXPECT_EQ(ds.num_outputs, 3);
  EXPECT_EQ(ds.sample_shape, (std::vector<int64_t>{2}));
  EXPECT_EQ(ds.trainSize(), 4);
  // The split permutes rows: check the pairing of features and labels, not the order.
  for (int64_t i = 0; i < 4; ++i) {
    const int64_t label = ds.train_y[i].item<int64_t>();
    const float a = ds.train_x[i][0].item<float>();  // standardised 1, 3, 5, 7
    const int64_t want = a < -1.0f ? 2 : a < 0.0f ? 0 : a < 1.0f ? 1 : 0;
    EXPECT_EQ(label, want) << "row with a = " << a;
  }
}

TEST(CsvReader, SemicolonsTabsAndIndicesWithoutHeader) {
  TempDir dir;
  testing::writeText(dir / "s.csv", rows(
                                        30, [](int i) { return std::to_string(i % 2); }, ';'));
  testing::writeText(dir / "t.tsv", rows(
                                        30, [](int i) { return std::to_string(i % 2); }, '\t'));
  for (const std::string file : {"s.csv", "t.tsv"}) {
    const Dataset ds = loadCsv(dir / file, "2", Task::kAuto, 0.1, 1);
    EXPECT_EQ(ds.trainSize(), 27) << file;
    EXPECT_EQ(ds.num_outputs, 2) << file;
    EXPECT_EQ(ds.sample_shape, (std::vector<int64_t>{2})) << file;
  }
  // Label by index 0: the row number becomes the label (30 integers: ambiguous, so forced).
  const Dataset by_index = loadCsv(dir / "s.csv", "0", Task::kRegression, 0.1, 1);
  EXPECT_EQ(by_index.task, Task::kRegression);
  EXPECT_EQ(by_index.train_y.sizes(), (std::vector<int64_t>{27, 1}));
}

TEST(CsvReader, TaskIsDecidedWhenObvious) {
  TempDir dir;
  testing::writeText(dir / "reg.csv",
                     "x,y,t\n" + rows(20, [](int i) { return std::to_string(i * 0.5); }));
  const Dataset reg = loadCsv(dir / "reg.csv", "t", Task::kAuto, 0.0, 1);
  EXPECT_EQ(reg.task, Task::kRegression);
  EXPECT_EQ(reg.num_outputs, 1);
  EXPECT_FLOAT_EQ(reg.train_y.sum().item<float>(), 0.5f * 190);

  // Small integers are classes, sorted by value ("10" after "9"), "1.0" the same class as "1".
  testing::writeText(dir / "cls.csv", rows(12, [](int i) {
                       return i == 11 ? std::string("1.0") : std::to_string(i % 11);
                     }));
  const Dataset cls = loadCsv(dir / "cls.csv", "", Task::kAuto, 0.0, 1);
  EXPECT_EQ(cls.task, Task::kClassification);
  ASSERT_EQ(cls.num_outputs, 11);
  EXPECT_EQ(cls.class_names[9], "9");
  EXPECT_EQ(cls.class_names[10], "10");
  EXPECT_EQ(torch::bincount(cls.train_y)[1].item<int64_t>(), 2);

  testing::writeText(dir / "many.csv", rows(40, [](int i) { return std::to_string(i); }));
  EXPECT_NE(messageOf([&] {
              loadCsv(dir / "many.csv", "", Task::kAuto, 0.1, 1);
            }).find("40 distinct integers, which could be classes or values"),
            std::string::npos);
  EXPECT_EQ(loadCsv(dir / "many.csv", "", Task::kClassification, 0.1, 1).num_outputs, 40);
}

TEST(CsvReader, StandardisesWithTrainingStatisticsOnly) {
  TempDir dir;
  constexpr int kRows = 100;
  testing::writeText(dir / "d.csv", rows(kRows, [](int i) { return std::to_string(i % 3); }));
  const Dataset ds = loadCsv(dir / "d.csv", "", Task::kAuto, 0.2, 3);
  ASSERT_EQ(ds.valSize(), 20);
  torch::Tensor train = ds.train_x.select(1, 0).to(torch::kFloat64);
  torch::Tensor val = ds.val_x.select(1, 0).to(torch::kFloat64);
  EXPECT_NEAR(train.mean().item<double>(), 0.0, 1e-6);
  EXPECT_NEAR(train.std(/*unbiased=*/false).item<double>(), 1.0, 1e-6);
  // Column 0 is the row number 0..99: one affine map for both splits leaves all 100 values
  // equally spaced; the spacing is 1/σ of the training rows' numbers.
  torch::Tensor all = std::get<0>(torch::cat({train, val}).sort());
  torch::Tensor gaps = all.slice(0, 1) - all.slice(0, 0, kRows - 1);
  EXPECT_LT((gaps - gaps[0]).abs().max().item<double>(), 1e-5);
  EXPECT_GT(val.mean().abs().item<double>(), 1e-3) << "validation was standardised on its own";
}

TEST(CsvReader, BinaryOrNonUtf8FilesAreNotTextCsv) {
  TempDir dir;
  const std::string file = dir / "random.csv";
  // Random bytes with a NUL at offset 17 (they once failed later as "the cell is empty").
  std::string bytes = "a,b,y\n1,2,0\n30,4,";
  bytes += std::string("\0\x9f\x01zz", 5);
  testing::writeText(file, bytes);
  EXPECT_EQ(
      messageOf([&] { loadCsv(file, "", Task::kAuto, 0.1, 1); }),
      file + " is not a text CSV file: byte 0x00 at offset 17, line 3 (save it as UTF-8 text)");
  EXPECT_THROW(checkTextFile(file, "CSV"), InputError);
  // Latin-1 'é' is not UTF-8; the UTF-8 'é' and a byte-order mark are.
  EXPECT_EQ(firstNonTextByte("caf\xe9,1\n"), 3u);
  EXPECT_EQ(firstNonTextByte("\xef\xbb\xbf"
                             "caf\xc3\xa9,1\r\n\t"),
            std::string::npos);
  EXPECT_EQ(firstNonTextByte("x\xe2\x82"), 1u);       // a sequence cut short
  EXPECT_EQ(firstNonTextByte("ab\xf8\x80\x80"), 2u);  // F5–FF never lead, even before continuations
  testing::writeText(file, "a,y\ncaf\xc3\xa9,1\n");
  EXPECT_NO_THROW(checkTextFile(file, "CSV"));
  EXPECT_THROW(checkTextFile(dir / "missing.csv", "CSV"), InputError);
}

TEST(CsvReader, BadFilesNameFileLineAndColumn) {
  TempDir dir;
  auto load = [&](const std::string& text, const std::string& label = "") {
    testing::writeText(dir / "bad.csv", text);
    return messageOf([&] { loadCsv(dir / "bad.csv", label, Task::kAuto, 0.1, 1); });
  };
  const std::string file = dir / "bad.csv";
  EXPECT_EQ(
      load("a,b,y\n1,2,0\n3,4,1\n5,6\n7,8,0\n"),
      file + " line 4 has 2 cells, but line 1 has 3; every row needs the same number of cells");
  EXPECT_NE(load("a,b,y\n1,2,0\n3,abc,1\n")
                .find(file + " line 3, column 'b' (index 1): 'abc' is not a number"),
            std::string::npos);
  EXPECT_NE(load("1,2,0\n3,,1\n").find("line 2, column index 1: the cell is empty"),
            std::string::npos);
  EXPECT_NE(load("a,b,y\n1,nan,0\n3,4,1\n").find("'nan' is not a finite number"),
            std::string::npos);
  EXPECT_NE(load("a,b,y\n1,2,0\n3,4,1\n", "target")
                .find("has no label column 'target' (its columns are a, b, y"),
            std::string::npos);
  EXPECT_NE(load("1,2,0\n3,4,1\n", "target").find("it has no header row"), std::string::npos);
  EXPECT_NE(load("1,2,0\n3,4,1\n", "5").find("from 0 to 2"), std::string::npos);
  EXPECT_NE(load("a,b,y\n1,2,cat\n3,4,cat\n").find("one class only ('cat')"), std::string::npos);
  EXPECT_NE(load("a\n1\n2\n").find("has a single column"), std::string::npos);
  EXPECT_NE(load("a,b,y\n1,2,\"cat\n").find("line 2: a quoted cell is not closed"),
            std::string::npos);
  EXPECT_NE(load("").find(file + " is empty"), std::string::npos);
  EXPECT_NE(load("\n\n  \n").find("only blank lines"), std::string::npos);
  EXPECT_NE(
      messageOf([&] { loadCsv(dir / "none.csv", "", Task::kAuto, 0.1, 1); }).find("does not exist"),
      std::string::npos);
  EXPECT_NE(messageOf([&] {
              loadCsv(dir.path(), "", Task::kAuto, 0.1, 1);
            }).find("is a folder; a CSV dataset must be a file"),
            std::string::npos);
  testing::writeText(file, "a,y\n1,x\n2,z\n");
  EXPECT_NE(
      messageOf([&] {
        loadCsv(file, "y", Task::kRegression, 0.1, 1);
      }).find("line 2, label column 'y' (index 1): 'x' is not a number, but regression needs"),
      std::string::npos);
}

TEST(CsvReader, ReadsGzippedFilesAndWindowsLineEnds) {
  TempDir dir;
  std::string text = "\xEF\xBB\xBFx;y;label\r\n";
  for (int i = 0; i < 10; ++i) text += std::to_string(i) + ";1;" + (i % 2 ? "yes" : "no") + "\r\n";
  testing::writeGz(dir / "d.csv.gz", testing::Bytes(text.begin(), text.end()));
  const Dataset ds = loadCsv(dir / "d.csv.gz", "label", Task::kAuto, 0.0, 1);
  EXPECT_EQ(ds.class_names, (std::vector<std::string>{"no", "yes"}));
  EXPECT_EQ(ds.trainSize(), 10);
  // The constant column y is centred, not divided by a zero spread.
  EXPECT_EQ(ds.train_x.select(1, 1).abs().max().item<float>(), 0.0f);
}

}  // namespace
}  // namespace accumlab
