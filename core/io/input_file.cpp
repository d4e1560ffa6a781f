// SPDX-License-Identifier: GPL-3.0-or-later
#include "accumlab/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "accumlab/input_error.h"

namespace accumlab {
namespace {

// Each read() takes at most this much, then the stop is asked: at the ~1 GB/s a page-cached
// file reads, a stop is seen within a few milliseconds.
constexpr size_t kReadChunk = 4u << 20;

std::string mib(uint64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

// "a named pipe (FIFO)" for a stat mode that is not a regular file or a folder; "" otherwise.
std::string specialKind(mode_t mode) {
  if (S_ISFIFO(mode)) return "a named pipe (FIFO)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (!S_ISREG(mode) && !S_ISDIR(mode)) return "not a regular file";
  return "";
}

void requireRegular(const std::string& path, const InputKind& kind, const struct stat& st) {
  if (S_ISDIR(st.st_mode)) {
    throw InputError(path + " is a folder; " + kind.what + " must be a file");
  }
  if (const std::string special = specialKind(st.st_mode); !special.empty()) {
    throw InputError(path + " is " + special + ", not a regular file; " + kind.what +
                     " must be a regular file");
  }
  if (kind.max_bytes > 0 && static_cast<uint64_t>(st.st_size) > kind.max_bytes) {
    throw InputError(path + " holds " + mib(static_cast<uint64_t>(st.st_size)) + "; " + kind.what +
                     " takes at most " + mib(kind.max_bytes));
  }
}

// Closes a descriptor when it goes out of scope.
struct Descriptor {
  int fd;
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

void requireRegularFile(const std::string& path, const InputKind& kind) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) throw InputError(path + " does not exist");
    throw InputError(path + " cannot be read (" + std::strerror(errno) + ")");
  }
  requireRegular(path, kind, st);
}

int openRegularFile(const std::string& path, const InputKind& kind) {
  requireRegularFile(path, kind);
  // O_NONBLOCK: should the path have become a FIFO since the check, open() must not wait for
  // a writer; the fstat below then refuses it.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw InputError(path + " cannot be opened (" + std::strerror(errno) + ")");
  Descriptor guard{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    throw InputError(path + " cannot be read (" + std::strerror(errno) + ")");
  }
  requireRegular(path, kind, st);
  // Regular files never block; clearing the flag keeps reads plain.
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  guard.fd = -1;
  return fd;
}

std::string readWholeFile(const std::string& path, const InputKind& kind, const ReadStop& stop) {
  Descriptor file{openRegularFile(path, kind)};
  struct stat st {};
  ::fstat(file.fd, &st);
  // The size is known: one allocation, no doubling. A file that grows while it is read is
  // read up to its size at the start plus the limit's slack, never without end.
  const auto size = static_cast<size_t>(st.st_size);
  std::string bytes(size, '\0');
  size_t used = 0;
  while (used < size) {
    stop.check(path);
    const ssize_t got = ::read(file.fd, bytes.data() + used, std::min(kReadChunk, size - used));
    if (got < 0) {
      if (errno == EINTR) continue;
      throw InputError(path + " cannot be read (" + std::strerror(errno) + ")");
    }
    if (got == 0) break;  // the file shrank while it was read
    used += static_cast<size_t>(got);
  }
  bytes.resize(used);
  stop.check(path);
  return bytes;
}

}  // namespace accumlab
