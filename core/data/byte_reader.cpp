// SPDX-License-Identifier: GPL-3.0-or-later
#include "data/byte_reader.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "accumlab/input_error.h"

namespace accumlab {
namespace {

// zlib's own buffer: a big one lets inflate run long stretches between file reads, which
// makes Fashion-MNIST's 26 MB .gz decode noticeably faster than the 8 KB default. Smaller
// files get a buffer of their own size, but not below zlib's default.
constexpr unsigned kGzBufferBytes = 1u << 20;
constexpr unsigned kMinGzBufferBytes = 8u << 10;
// gzread takes an unsigned count; larger reads are split into chunks of this size.
constexpr size_t kMaxChunk = 1u << 30;
// readAll() reads at most this much at a time (the length of gzipped content is unknown);
// its first read is the file's size (plus one byte to see the end), small files stay small.
constexpr size_t kReadChunk = 4u << 20;

gzFile asGz(void* p) { return static_cast<gzFile>(p); }

}  // namespace

void checkReadableFile(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) throw InputError(path + " does not exist");
  if (fs::is_directory(st)) throw InputError(path + " is a directory, expected a file");
  std::ifstream probe(path, std::ios::binary);
  if (!probe) throw InputError(path + " cannot be read (" + std::strerror(errno) + ")");
  if (fs::is_regular_file(st) && fs::file_size(path, ec) == 0 && !ec) {
    throw InputError(path + " is empty");
  }
}

ByteReader::ByteReader(const std::string& path) : path_(path) {
  checkReadableFile(path);
  gz_ = gzopen(path.c_str(), "rb");
  if (!gz_) throw InputError(path + " cannot be opened (" + std::strerror(errno) + ")");
  std::error_code ec;
  file_size_ = std::filesystem::file_size(path, ec);
  if (ec) file_size_ = 0;
  gzbuffer(asGz(gz_), static_cast<unsigned>(
                          std::clamp<uint64_t>(file_size_, kMinGzBufferBytes, kGzBufferBytes)));
}

ByteReader::~ByteReader() {
  if (gz_) gzclose_r(asGz(gz_));
}

size_t ByteReader::read(void* dst, size_t n) {
  size_t total = 0;
  auto* out = static_cast<unsigned char*>(dst);
  while (total < n) {
    const auto chunk = static_cast<unsigned>(std::min(n - total, kMaxChunk));
    const int got = gzread(asGz(gz_), out + total, chunk);
    int err = Z_OK;
    const char* msg = gzerror(asGz(gz_), &err);
    if (got < 0 || (err != Z_OK && err != Z_STREAM_END)) {
      const uint64_t at = offset_ + total;
      if (err == Z_BUF_ERROR) {
        throw InputError(path_ + " is a truncated gzip file: it ends after " + std::to_string(at) +
                         " bytes of content");
      }
      throw InputError(path_ + " is a corrupt gzip file (" + (msg ? msg : "unknown error") +
                       " after " + std::to_string(at) + " bytes of content)");
    }
    total += static_cast<size_t>(got);
    if (static_cast<unsigned>(got) < chunk) break;
  }
  offset_ += total;
  return total;
}

void ByteReader::readExactly(void* dst, size_t n, const std::string& what) {
  const uint64_t start = offset_;
  const size_t got = read(dst, n);
  if (got < n) {
    throw InputError(path_ + " ends after " + std::to_string(start + got) + " bytes, but " + what +
                     " need " + std::to_string(start + n) +
                     (compressed() ? " (after gunzip)" : ""));
  }
}

std::string ByteReader::readAll() {
  std::string bytes;
  size_t used = 0;
  size_t chunk = static_cast<size_t>(std::min<uint64_t>(file_size_ + 1, kReadChunk));
  for (;;) {
    bytes.resize(used + chunk);
    const size_t got = read(bytes.data() + used, chunk);
    used += got;
    if (got < chunk) break;
    chunk = kReadChunk;
  }
  bytes.resize(used);
  return bytes;
}

bool ByteReader::atEnd() {
  const int c = gzgetc(asGz(gz_));
  if (c < 0) {
    int err = Z_OK;
    const char* msg = gzerror(asGz(gz_), &err);
    if (err == Z_BUF_ERROR) throw InputError(path_ + " is a truncated gzip file");
    if (err != Z_OK && err != Z_STREAM_END) {
      throw InputError(path_ + " is a corrupt gzip file (" + (msg ? msg : "unknown error") + ")");
    }
    return true;
  }
  gzungetc(c, asGz(gz_));
  return false;
}

bool ByteReader::compressed() const { return gzdirect(asGz(gz_)) == 0; }

}  // namespace accumlab
