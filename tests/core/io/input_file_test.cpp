// SPDX-License-Identifier: GPL-3.0-or-later
// Only regular files are read, each to a limit, and a stop ends a read at once: a FIFO, a
// device or a folder is refused by name without being opened for a blocking read.
#include "accumlab/input_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <future>

#include "accumlab/experiment_config.h"
#include "accumlab/input_error.h"
#include "accumlab/text_file.h"
#include "data/byte_reader.h"
#include "data/dataset_factory.h"
#include "data/temp_files.h"

namespace accumlab {
namespace {

using testing::TempDir;

// A refusal must come at once; a read that waits on a FIFO would wait for ever.
constexpr auto kAtOnce = std::chrono::seconds(5);

// Runs `read` on another thread and returns the InputError's message, or "" when it threw
// none. Should the read block on `fifo`, a writer is opened to release it and the test fails.
std::string refusalOf(const std::function<void()>& read, const std::string& fifo = "") {
  auto done = std::async(std::launch::async, [&]() -> std::string {
    try {
      read();
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  });
  if (done.wait_for(kAtOnce) != std::future_status::ready) {
    if (!fifo.empty()) ::close(::open(fifo.c_str(), O_WRONLY));  // lets the reader go on
    ADD_FAILURE() << "the read blocked for more than " << kAtOnce.count() << " s";
  }
  return done.get();
}

std::string makeFifo(const TempDir& dir) {
  const std::string path = dir / "pipe";
  if (::mkfifo(path.c_str(), 0600) != 0) throw std::runtime_error("mkfifo failed");
  return path;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(InputFile, FifoIsRefusedByNameWithoutWaitingForAWriter) {
  TempDir dir;
  const std::string fifo = makeFifo(dir);
  const std::string message = refusalOf([&] { readWholeFile(fifo, {"a text dataset", 0}); }, fifo);
  EXPECT_TRUE(contains(message, fifo + " is a named pipe (FIFO), not a regular file; "
                                       "a text dataset must be a regular file"))
      << message;
}

TEST(InputFile, EveryReaderRefusesAFifo) {
  TempDir dir;
  const std::string fifo = makeFifo(dir);
  ExperimentConfig config;
  for (const std::string& spec : {"csv:", "text:"}) {
    config.data = spec + fifo;
    const std::string message = refusalOf([&] { loadDataset(config); }, fifo);
    EXPECT_TRUE(contains(message, "is a named pipe (FIFO)")) << spec << ": " << message;
  }
  EXPECT_TRUE(contains(refusalOf(
                           [&] {
                             ByteReader(fifo, {"an IDX file", 0});
                           },
                           fifo),
                       "is a named pipe (FIFO)"));
  EXPECT_TRUE(
      contains(refusalOf([&] { checkTextFile(fifo, "CSV"); }, fifo), "is a named pipe (FIFO)"));
  EXPECT_TRUE(contains(refusalOf([&] { loadConfigFile(fifo); }, fifo), "is a named pipe (FIFO)"));
  EXPECT_TRUE(contains(refusalOf([&] { checkReadableFile(fifo, "a model"); }, fifo),
                       "is a named pipe (FIFO)"));
}

TEST(InputFile, DeviceThatNeverEndsIsRefusedByName) {
  ExperimentConfig config;
  for (const std::string& spec : {"csv:/dev/zero", "text:/dev/zero"}) {
    config.data = spec;
    const std::string message = refusalOf([&] { loadDataset(config); });
    EXPECT_TRUE(contains(message, "/dev/zero is a character device, not a regular file"))
        << spec << ": " << message;
  }
}

TEST(InputFile, FolderIsRefusedByName) {
  TempDir dir;
  const std::string message = refusalOf([&] { readWholeFile(dir.path(), {"a CSV dataset", 0}); });
  EXPECT_TRUE(contains(message, dir.path() + " is a folder; a CSV dataset must be a file"))
      << message;
}

TEST(InputFile, FileAboveTheLimitIsRefusedBeforeItIsRead) {
  TempDir dir;
  testing::writeText(dir / "big.txt", std::string(3u << 20, 'a'));
  const std::string message = refusalOf([&] {
    readWholeFile(dir / "big.txt", {"a text dataset", 1u << 20});
  });
  EXPECT_TRUE(contains(message, "big.txt holds 3 MiB; a text dataset takes at most 1 MiB"))
      << message;
}

TEST(InputFile, GzippedContentAboveTheLimitIsRefused) {
  TempDir dir;
  const std::string path = dir / "zeros.gz";
  gzFile gz = gzopen(path.c_str(), "wb");
  const std::string zeros(1u << 20, '\0');
  for (int i = 0; i < 8; ++i) gzwrite(gz, zeros.data(), static_cast<unsigned>(zeros.size()));
  gzclose(gz);
  const std::string message = refusalOf([&] {
    ByteReader(path, {"a CSV dataset", 2u << 20}).readAll();
  });
  EXPECT_TRUE(contains(message,
                       "zeros.gz holds more than 2 MiB after gunzip; a CSV dataset "
                       "takes at most 2 MiB"))
      << message;
}

TEST(InputFile, WholeFileIsReadExactly) {
  TempDir dir;
  std::string text(5u << 20, 'x');
  text[12345] = 'y';
  testing::writeText(dir / "a.txt", text);
  EXPECT_EQ(readWholeFile(dir / "a.txt", {"a text dataset", 8u << 20}), text);
  EXPECT_EQ(ByteReader(dir / "a.txt", {"a CSV dataset", 8u << 20}).readAll(), text);
}

TEST(InputFile, StopEndsTheRead) {
  TempDir dir;
  testing::writeText(dir / "a.csv", "a,b,y\n1,2,0\n3,4,1\n");
  std::atomic<bool> stop{true};
  EXPECT_THROW(readWholeFile(dir / "a.csv", {"a CSV dataset", 0}, ReadStop(&stop)), ReadStopped);
  ExperimentConfig config;
  config.data = "csv:" + dir / "a.csv";
  EXPECT_THROW(loadDataset(config, nullptr, ReadStop(&stop)), ReadStopped);
  stop = false;
  EXPECT_NO_THROW(loadDataset(config, nullptr, ReadStop(&stop)));
}

}  // namespace
}  // namespace accumlab
