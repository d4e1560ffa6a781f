// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

namespace accumlab {

/// The running program's own file (from /proc/self/exe), or "" when it cannot be read.
std::string executablePath();
/// Its folder, with a trailing '/', or "" when unknown.
std::string executableDir();

}  // namespace accumlab
