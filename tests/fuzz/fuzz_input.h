// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

namespace accumlab::fuzz {

/// A folder of this process under the system temp dir, made on first use and kept for the
/// whole run (one per fuzzer process, so that parallel jobs do not collide).
inline const std::string& scratchDir() {
  static const std::string dir = [] {
    const auto path =
        std::filesystem::temp_directory_path() / ("accumlab-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(path);
    return path.string();
  }();
  return dir;
}

/// Writes the fuzz input to `name` inside scratchDir() and returns its path: the readers
/// take paths, as the app gives them.
inline std::string writeInput(const std::string& name, const uint8_t* data, size_t size) {
  const std::string path = scratchDir() + "/" + name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return path;
}

}  // namespace accumlab::fuzz
