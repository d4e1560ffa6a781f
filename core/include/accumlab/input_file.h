// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace accumlab {

/// Thrown when a stop (Ctrl-C, SIGTERM, the app's Stop) arrives while a file is being read:
/// the read gives up within a fraction of a second and nothing is trained or stored. Not an
/// InputError: the file may be fine.
class ReadStopped : public std::runtime_error {
 public:
  explicit ReadStopped(const std::string& path)
      : std::runtime_error("stopped while reading " + path), path_(path) {}
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

/// The stop a read asks between its chunks. Default: never stops. The flag belongs to the
/// caller (e.g. the trainer's control), which sets it from any thread.
class ReadStop {
 public:
  ReadStop() = default;
  explicit ReadStop(const std::atomic<bool>* flag) : flag_(flag) {}
  /// Throws ReadStopped naming `path` when the stop was requested.
  void check(const std::string& path) const {
    if (flag_ && flag_->load(std::memory_order_relaxed)) throw ReadStopped(path);
  }

 private:
  const std::atomic<bool>* flag_ = nullptr;
};

/// What the caller reads a file as, for messages ("a CSV dataset", "an experiment file"),
/// and the most bytes it may hold.
struct InputKind {
  std::string what = "the input";  ///< e.g. "a CSV dataset": the file's role in messages
  uint64_t max_bytes = 0;          ///< 0: no limit beyond the file's own size
};

/// Throws InputError, without opening `path`, unless it names a regular file: a missing
/// path, a folder, a FIFO, a device or a socket is refused by name ("f is a named pipe
/// (FIFO), not a regular file; a CSV dataset must be a regular file"). Opening a FIFO would
/// wait for a writer and reading /dev/zero never ends: neither may happen.
void requireRegularFile(const std::string& path, const InputKind& kind);

/// Opens `path` for reading (close-on-exec) and returns its descriptor, after the checks of
/// requireRegularFile, made again on the opened file so that a path swapped in between is
/// caught too. Throws InputError naming the file when it cannot be opened.
int openRegularFile(const std::string& path, const InputKind& kind);

/// The whole of the regular file `path`, read in chunks that each ask `stop`. Throws
/// InputError when it is refused by requireRegularFile, unreadable, or larger than
/// `kind.max_bytes`; ReadStopped when stopped. Holds the file's size in memory, once.
std::string readWholeFile(const std::string& path, const InputKind& kind,
                          const ReadStop& stop = ReadStop());

}  // namespace accumlab
