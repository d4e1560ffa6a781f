// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "accumlab/input_file.h"

namespace accumlab {

/// Reads a binary file front to back, gunzipping it on the fly when it is gzip-compressed
/// (detected from its content, not its name). Failures are InputErrors naming the file.
/// Only a regular file is opened (never a FIFO or a device), its content, after gunzip, is
/// held to `kind.max_bytes`, and every chunk read asks `stop`. Used by one thread at a time.
class ByteReader {
 public:
  /// Opens `path`; throws InputError if it is missing, a directory, not a regular file,
  /// unreadable, empty, or on disk larger than `kind.max_bytes`.
  ByteReader(const std::string& path, const InputKind& kind, const ReadStop& stop = ReadStop());
  ~ByteReader();
  ByteReader(const ByteReader&) = delete;
  ByteReader& operator=(const ByteReader&) = delete;

  /// Reads up to `n` bytes into `dst`; returns how many were read (fewer only at the end).
  /// Throws InputError when the gzip stream is corrupt or truncated or its content passes
  /// `kind.max_bytes`, ReadStopped when a stop is requested.
  size_t read(void* dst, size_t n);
  /// Reads exactly `n` bytes; a short read is an InputError that says `what` was expected.
  void readExactly(void* dst, size_t n, const std::string& what);
  /// Reads everything that is left (at most `kind.max_bytes`).
  std::string readAll();
  /// True when no byte is left.
  bool atEnd();
  /// Bytes of (uncompressed) content read so far.
  uint64_t offset() const { return offset_; }
  /// The size of the file on disk (compressed, when it is gzipped).
  uint64_t fileSize() const { return file_size_; }
  bool compressed() const;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  InputKind kind_;
  ReadStop stop_;
  void* gz_ = nullptr;  // gzFile, kept opaque so that zlib.h stays out of this header
  uint64_t offset_ = 0;
  uint64_t file_size_ = 0;
};

/// Throws InputError unless `path` names an existing, non-empty regular file (never opening
/// it: a FIFO or a device is refused by name, see requireRegularFile); `what` names its role.
void checkReadableFile(const std::string& path, const std::string& what = "the input");

}  // namespace accumlab
