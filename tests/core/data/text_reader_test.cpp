// SPDX-License-Identifier: GPL-3.0-or-later
// Text datasets: sequences from lines, paragraphs and fortune files, their rows and errors.
#include "data/text_reader.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "accumlab/input_error.h"
#include "accumlab/text_lengths.h"
#include "input_error_message.h"
#include "temp_files.h"

namespace accumlab {
namespace {

using testing::messageOf;

TEST(TextReader, SplitsLinesAndDropsBlankOnes) {
  const TextSequences t =
      splitText("\xEF\xBB\xBFone\r\n\ntwo two\n  \nthree", "f.txt", TextSplit::kLine, 256);
  ASSERT_EQ(t.sequences.size(), 3u);
  EXPECT_EQ(t.sequences[0], "one");
  EXPECT_EQ(t.sequences[1], "two two");
  EXPECT_EQ(t.sequences[2], "three");
  EXPECT_EQ(t.cut, 0);
}

TEST(TextReader, SplitsParagraphsKeepingTheirLineBreaks) {
  const TextSequences t = splitText("a b\nc\n\n\nd\n", "f.txt", TextSplit::kParagraph, 256);
  ASSERT_EQ(t.sequences.size(), 2u);
  EXPECT_EQ(t.sequences[0], "a b\nc");
  EXPECT_EQ(t.sequences[1], "d");
}

TEST(TextReader, CutsSequencesToTheLimitAndCountsThem) {
  const TextSequences t = splitText("abcdef\nab\n", "f.txt", TextSplit::kLine, 4);
  EXPECT_EQ(t.sequences[0], "abcd");
  EXPECT_EQ(t.sequences[1], "ab");
  EXPECT_EQ(t.cut, 1);
}

TEST(TextReader, SplitsFortunesAtPercentLines) {
  const TextSequences t =
      splitFortunes("First quote.\n\t-- Someone\n%\nSecond.\n%\n%\n", "cookie", 256);
  ASSERT_EQ(t.sequences.size(), 2u);
  EXPECT_EQ(t.sequences[0], "First quote.\n\t-- Someone");
  EXPECT_EQ(t.sequences[1], "Second.");
}

TEST(TextReader, LeavesOutFortunesThatAreNotText) {
  const TextSequences t = splitFortunes("Bold: B\bBo\bo\n%\nPlain.\n%\n", "art", 256);
  ASSERT_EQ(t.sequences.size(), 1u);
  EXPECT_EQ(t.sequences[0], "Plain.");
  EXPECT_EQ(t.skipped, 1);
}

TEST(TextReader, NamesTheLineAndByteOfAControlByte) {
  const std::string m = messageOf(
      [] { splitText(std::string("ok\nfine\nbad\x01here\n"), "x.txt", TextSplit::kLine, 256); });
  EXPECT_NE(m.find("x.txt"), std::string::npos) << m;
  EXPECT_NE(m.find("x.txt is not a text dataset file: byte 0x01 at offset 11, line 3 (save it as "
                   "UTF-8 text)"),
            std::string::npos)
      << m;
}

TEST(TextReader, NamesInvalidUtf8) {
  const std::string m =
      messageOf([] { splitText("caf\xC3\n\xFFz\n", "y.txt", TextSplit::kLine, 256); });
  EXPECT_NE(m.find("y.txt is not a text dataset file: invalid UTF-8 byte 0xC3 at offset 3, line 1"),
            std::string::npos)
      << m;
}

TEST(TextReader, RefusesTextWithoutSequences) {
  EXPECT_NE(messageOf([] {
              splitText("\n \n\t\n", "e.txt", TextSplit::kLine, 256);
            }).find("e.txt holds no line with text"),
            std::string::npos);
  ExperimentConfig c;
  TextSequences one;
  one.sequences = {"only"};
  EXPECT_NE(messageOf([&] {
              makeTextDataset(one, "one.txt", c);
            }).find("one.txt holds 1 sequence; a text dataset needs at least two"),
            std::string::npos);
}

TEST(TextReader, NamesEmptyMissingAndBinaryFiles) {
  testing::TempDir dir;
  ExperimentConfig c;
  testing::writeFile(dir / "empty.txt", {});
  EXPECT_NE(messageOf([&] { loadTextFile(dir / "empty.txt", c); }).find("empty.txt is empty"),
            std::string::npos);
  EXPECT_NE(
      messageOf([&] { loadTextFile(dir / "missing.txt", c); }).find("missing.txt does not exist"),
      std::string::npos);
  testing::writeFile(dir / "model.pt", {'P', 'K', 3, 4, 0, 0});
  EXPECT_NE(messageOf([&] {
              loadTextFile(dir / "model.pt", c);
            }).find("model.pt is not a text dataset file: byte 0x03 at offset 2, line 1"),
            std::string::npos);
  EXPECT_NE(messageOf([&] { loadTextFile(dir.path(), c); }).find("is a folder"), std::string::npos);
  EXPECT_NE(messageOf([&] {
              loadFortunes(dir / "nowhere", c);
            }).find("install the Debian package fortunes"),
            std::string::npos);
}

TEST(TextLengths, CountsEachBinAndScalesTheBars) {
  TextLengths t;
  t.max_len = 16;
  t.bytes = {1, 2, 4, 4, 5, 16, 16, 16};
  t.cut = 3;
  // Four bins of 4 bytes: 1–4 holds 4, 5–8 one, 13–16 three; the longest bin's bar is full.
  EXPECT_EQ(textLengthHistogram(t, 4, 4),
            "8 sequences, median 5 bytes, longest 16; 3 cut to 16\n"
            "   1–4    ████ 4\n"
            "   5–8    █ 1\n"
            "   9–12    0\n"
            "  13–16   ███ 3");
  EXPECT_EQ(textLengthHistogram(TextLengths{}), "");
}

TEST(TextLengths, OfTheFortunesAsARunReadsThem) {
  ExperimentConfig c;
  c.data = "fortunes";
  if (!std::filesystem::is_directory(kFortunesDir)) GTEST_SKIP() << "fortunes not installed";
  const TextLengths t = textLengths(c);
  EXPECT_GT(t.bytes.size(), 10000u);
  EXPECT_GT(t.cut, 0);
  std::printf("%s\n", textLengthHistogram(t).c_str());
  c.data = "spirals";
  EXPECT_THROW(textLengths(c), InputError);
}

TEST(TextDataset, RowsPadToTheirLongestAndMaskThePadding) {
  ExperimentConfig c;
  c.val_fraction = 0;
  TextSequences t;
  t.sequences = {"ab", "hello", "xyz"};
  Dataset ds = makeTextDataset(t, "t", c);
  ASSERT_TRUE(ds.isText());
  EXPECT_EQ(ds.num_outputs, kTextVocabulary);
  // Find the rows of "ab" and "hello" after the shuffle.
  int64_t ab = -1, hello = -1;
  for (int64_t i = 0; i < ds.trainSize(); ++i) {
    const int64_t len = ds.train_len[i].item<int64_t>();
    if (len == 4) ab = i;
    if (len == 7) hello = i;
  }
  ASSERT_GE(ab, 0);
  ASSERT_GE(hello, 0);
  const torch::Tensor rows = torch::tensor({ab, hello}, torch::kLong);
  const torch::Tensor x = ds.trainInputs(rows, torch::kFloat32, torch::kCPU);
  const torch::Tensor y = ds.trainTargets(rows, torch::kFloat32, torch::kCPU);
  ASSERT_EQ(x.sizes(), (std::vector<int64_t>{2, 6}));
  ASSERT_EQ(y.sizes(), (std::vector<int64_t>{2, 6}));
  EXPECT_EQ(x[0][0].item<int64_t>(), kTextStart);
  EXPECT_EQ(x[0][1].item<int64_t>(), 'a');
  EXPECT_EQ(y[0][0].item<int64_t>(), 'a');
  EXPECT_EQ(y[0][1].item<int64_t>(), 'b');
  EXPECT_EQ(y[0][2].item<int64_t>(), kTextEnd);
  EXPECT_EQ(y[0][3].item<int64_t>(), kIgnoredTarget);
  EXPECT_EQ(y[1][5].item<int64_t>(), kTextEnd);
  // "ab" has 3 target tokens (a, b, end), "hello" 6.
  EXPECT_DOUBLE_EQ(ds.trainWeight(rows), 9.0);
  ds.token_loss = TokenLoss::kSequences;
  EXPECT_DOUBLE_EQ(ds.trainWeight(rows), 2.0);
  // A batch of "ab" alone is 3 positions wide.
  EXPECT_EQ(ds.trainInputs(rows.slice(0, 0, 1), torch::kFloat32, torch::kCPU).size(1), 3);
}

// Rows are padded to the longest sequence: a few megabytes of short lines beside one long
// one must not become gigabytes of rows. Both limits are refused before the rows are made.
TEST(TextReader, RefusesTextWhoseRowsWouldPassTheLimit) {
  testing::TempDir dir;
  ExperimentConfig c;
  std::string many;
  for (int i = 0; i < (1 << 22) + 1; ++i) many += "a\n";
  testing::writeText(dir / "many.txt", many);
  EXPECT_NE(messageOf([&] {
              loadTextFile(dir / "many.txt", c);
            }).find("many.txt holds more than 4,194,304 sequences"),
            std::string::npos);
  std::string wide(60000, 'x');
  wide += "\n";
  for (int i = 0; i < 20000; ++i) wide += "ab\n";
  testing::writeText(dir / "wide.txt", wide);
  c.max_len = 100000;
  const std::string m = messageOf([&] { loadTextFile(dir / "wide.txt", c); });
  EXPECT_NE(m.find("holds 20,001 sequences padded to its longest, 60,000 bytes: 1144 MiB of rows, "
                   "more than the 1024 MiB a text dataset may take"),
            std::string::npos)
      << m;
}

}  // namespace
}  // namespace accumlab
