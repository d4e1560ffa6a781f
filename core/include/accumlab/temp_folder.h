// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

namespace accumlab {

/// A private folder (mode 0700, from mkdtemp) under $TMPDIR or /tmp, for what a program hands
/// its child processes (configs, their output, a rendezvous); removed with the files in it when
/// destroyed. Only this user can read or write it, which is what lets the children trust it.
class TempFolder {
 public:
  /// Makes `$TMPDIR/PREFIX-XXXXXX` (or under /tmp). Throws std::system_error with mkdtemp's
  /// reason when it cannot.
  explicit TempFolder(const std::string& prefix);
  /// Removes the files in it, then the folder (it holds no sub-folders).
  ~TempFolder();
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;

  /// Its path, without a trailing '/'.
  const std::string& path() const { return path_; }
  /// The folder it is made in: $TMPDIR, or /tmp when that is unset or empty.
  static std::string parent();

 private:
  std::string path_;
};

}  // namespace accumlab
