// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

namespace accumlab {

/// Writes `bytes` to `path` whole or not at all: into "PATH.partial" beside it, then renamed
/// over `path`, so that a failed write, a full disk or a kill never leaves half a file and a
/// reader never sees one. Throws InputError "cannot write WHAT PATH (reason)" when it cannot,
/// with the partial file removed; `what` names the file for the reader ("the export file"),
/// and may be empty.
void writeFileWhole(const std::string& path, const std::string& bytes,
                    const std::string& what = {});

}  // namespace accumlab
