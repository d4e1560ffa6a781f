// SPDX-License-Identifier: GPL-3.0-or-later
#include "accumlab/text_file.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>

#include "accumlab/input_error.h"
#include "accumlab/input_file.h"

namespace accumlab {

namespace {

// checkTextFile looks at this much of the file's start.
constexpr size_t kHeadBytes = 65536;

/// firstNonTextByte; with `prefix`, a UTF-8 sequence cut off by the end of `text` (a prefix
/// of the file) is not held against it.
size_t scan(const std::string& text, bool prefix) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  size_t i = (n >= 3 && s[0] == 0xEF && s[1] == 0xBB && s[2] == 0xBF) ? 3 : 0;
  while (i < n) {
    const unsigned char c = s[i];
    if (c < 0x80) {
      if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') return i;
      if (c == 0x7F) return i;
      ++i;
      continue;
    }
    // A UTF-8 sequence: its length from the lead byte, then continuation bytes 10xxxxxx.
    // Leads: C2–DF two bytes, E0–EF three, F0–F4 four; 80–C1 and F5–FF never lead.
    const size_t len = c >= 0xC2 && c <= 0xDF   ? 2
                       : c >= 0xE0 && c <= 0xEF ? 3
                       : c >= 0xF0 && c <= 0xF4 ? 4
                                                : 0;
    if (len == 0) return i;
    if (i + len > n) return prefix ? std::string::npos : i;
    for (size_t k = 1; k < len; ++k) {
      if ((s[i + k] & 0xC0) != 0x80) return i;
    }
    i += len;
  }
  return std::string::npos;
}

std::string problemAt(const std::string& path, const std::string& kind, const std::string& text,
                      size_t at) {
  if (at == std::string::npos) return "";
  char byte[8];
  std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned char>(text[at]));
  const bool control = static_cast<unsigned char>(text[at]) < 0x80;
  const auto line =
      1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n');
  return path + " is not a text " + kind + " file: " + (control ? "byte " : "invalid UTF-8 byte ") +
         byte + " at offset " + std::to_string(at) + ", line " + std::to_string(line) +
         " (save it as UTF-8 text)";
}

}  // namespace

size_t firstNonTextByte(const std::string& text) { return scan(text, false); }

std::string nonTextProblem(const std::string& path, const std::string& kind,
                           const std::string& text) {
  return problemAt(path, kind, text, scan(text, false));
}

void checkTextFile(const std::string& path, const std::string& kind) {
  // Only a regular file is opened: a FIFO would wait for a writer, a device never end.
  const int fd = openRegularFile(path, {"a " + kind + " file"});
  std::string head(kHeadBytes, '\0');
  size_t used = 0;
  while (used < head.size()) {
    const ssize_t got = ::read(fd, head.data() + used, head.size() - used);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    used += static_cast<size_t>(got);
  }
  ::close(fd);
  head.resize(used);
  const std::string problem = problemAt(path, kind, head, scan(head, used == kHeadBytes));
  if (!problem.empty()) throw InputError(problem);
}

}  // namespace accumlab
