// SPDX-License-Identifier: GPL-3.0-or-later
#include "data/byte_reader.h"

#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "accumlab/input_error.h"

namespace accumlab {
namespace {

// zlib's own buffer: a big one lets inflate run long stretches between file reads, which
// makes Fashion-MNIST's 26 MB .gz decode noticeably faster than the 8 KB default. Smaller
// files get a buffer of their own size, but not below zlib's default.
constexpr unsigned kGzBufferBytes = 1u << 20;
constexpr unsigned kMinGzBufferBytes = 8u << 10;
// Larger reads are split into chunks of this size (gzread takes an unsigned count); the stop
// is asked between them, so a stop ends even a gigabyte's read within a few milliseconds.
constexpr size_t kMaxChunk = 4u << 20;
// readAll() reads gzipped content, whose length is unknown, this much at a time.
constexpr size_t kReadChunk = 4u << 20;

gzFile asGz(void* p) { return static_cast<gzFile>(p); }

}  // namespace

void checkReadableFile(const std::string& path, const std::string& what) {
  InputKind kind;
  kind.what = what;
  requireRegularFile(path, kind);
  std::error_code ec;
  if (std::filesystem::file_size(path, ec) == 0 && !ec) throw InputError(path + " is empty");
}

ByteReader::ByteReader(const std::string& path, const InputKind& kind, const ReadStop& stop)
    : path_(path), kind_(kind), stop_(stop) {
  const int fd = openRegularFile(path, kind);
  std::error_code ec;
  file_size_ = std::filesystem::file_size(path, ec);
  if (ec) file_size_ = 0;
  if (file_size_ == 0) {
    ::close(fd);
    throw InputError(path + " is empty");
  }
  gz_ = gzdopen(fd, "rb");  // owns fd from here, also when it fails
  if (!gz_) {
    ::close(fd);
    throw InputError(path + " cannot be opened (" + std::strerror(errno) + ")");
  }
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
    stop_.check(path_);
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
    if (kind_.max_bytes > 0 && offset_ + total > kind_.max_bytes) {
      throw InputError(path_ + " holds more than " + std::to_string(kind_.max_bytes >> 20) +
                       " MiB" + (compressed() ? " after gunzip" : "") + "; " + kind_.what +
                       " takes at most " + std::to_string(kind_.max_bytes >> 20) + " MiB");
    }
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
  // A plain file's content is its size: one allocation of exactly that (plus the byte that
  // shows the end), never a doubling. Gzipped content grows chunk by chunk, up to the limit.
  const bool plain = !compressed();
  if (plain) bytes.reserve(file_size_ - std::min(offset_, file_size_) + 1);
  size_t used = 0;
  for (;;) {
    size_t chunk = kReadChunk;
    if (plain) chunk = std::max<size_t>(1, std::min(chunk, bytes.capacity() - used));
    bytes.resize(used + chunk);
    const size_t got = read(bytes.data() + used, chunk);
    used += got;
    if (got < chunk) break;
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
