// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace accumlab {

/// The positive integers of `text` between `separator`s, in order: "256,128" with ',' gives
/// {256, 128}, "1x28x28" with 'x' gives {1, 28, 28}. Throws InputError "PROBLEM, found 'ITEM'"
/// at the first item that is not a positive integer; `problem` says what the text must look
/// like, naming the spec it came from.
std::vector<int64_t> parsePositiveIntegers(const std::string& text, char separator,
                                           const std::string& problem);

}  // namespace accumlab
