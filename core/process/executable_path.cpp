// SPDX-License-Identifier: GPL-3.0-or-later
#include "accumlab/executable_path.h"

#include <filesystem>
#include <system_error>

namespace accumlab {

std::string executablePath() {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : self.string();
}

std::string executableDir() {
  const std::string path = executablePath();
  return path.substr(0, path.find_last_of('/') + 1);
}

}  // namespace accumlab
