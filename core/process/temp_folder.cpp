// SPDX-License-Identifier: GPL-3.0-or-later
#include "accumlab/temp_folder.h"

#include <dirent.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <system_error>

namespace accumlab {

TempFolder::TempFolder(const std::string& prefix) {
  std::string path = parent() + "/" + prefix + "-XXXXXX";
  if (!::mkdtemp(path.data())) {
    throw std::system_error(errno, std::generic_category(), "cannot make a folder in " + parent());
  }
  path_ = path;
}

TempFolder::~TempFolder() {
  // Flat: what the children leave here are files.
  if (DIR* d = ::opendir(path_.c_str())) {
    while (const dirent* entry = ::readdir(d)) {
      const std::string name = entry->d_name;
      if (name != "." && name != "..") ::unlink((path_ + "/" + name).c_str());
    }
    ::closedir(d);
  }
  ::rmdir(path_.c_str());
}

std::string TempFolder::parent() {
  const char* t = std::getenv("TMPDIR");
  return t && *t ? t : "/tmp";
}

}  // namespace accumlab
