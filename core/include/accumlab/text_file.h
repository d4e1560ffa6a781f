// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstddef>
#include <string>

namespace accumlab {

/// Where `text` stops being UTF-8 text: the offset of its first NUL or other control byte
/// (tab, CR and LF are text), or of the first byte that is not valid UTF-8; npos when it is
/// all text. A UTF-8 byte-order mark at the start counts as text.
size_t firstNonTextByte(const std::string& text);

/// Reads the first 64 KiB of `path` and throws InputError when it is not a text file of
/// `kind` (e.g. "CSV"): "x.csv is not a text CSV file: byte 0x00 at offset 17, line 3 (save it as
/// UTF-8 text)". Also throws InputError, naming the file, when it cannot be read. Opening the run
/// database this way would drop the process's locks on it: callers rule that out first
/// (RunStore::wouldOverwrite).
void checkTextFile(const std::string& path, const std::string& kind);

/// The sentence checkTextFile throws for `text` read from `path`, or "" when it is text.
std::string nonTextProblem(const std::string& path, const std::string& kind,
                           const std::string& text);

}  // namespace accumlab
