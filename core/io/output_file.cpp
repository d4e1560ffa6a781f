// SPDX-License-Identifier: GPL-3.0-or-later
#include "accumlab/output_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "accumlab/input_error.h"

namespace accumlab {

void writeFileWhole(const std::string& path, const std::string& bytes, const std::string& what) {
  const std::string partial = path + ".partial";
  const auto fail = [&](const std::string& reason) {
    std::remove(partial.c_str());
    throw InputError("cannot write " + (what.empty() ? "" : what + " ") + path + " (" + reason +
                     ")");
  };
  {
    std::ofstream out(partial, std::ios::binary | std::ios::trunc);
    if (out) out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) fail(std::strerror(errno));
  }
  if (std::rename(partial.c_str(), path.c_str()) != 0) fail(std::strerror(errno));
}

}  // namespace accumlab
