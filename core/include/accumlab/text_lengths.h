// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "accumlab/experiment_config.h"

namespace accumlab {

/// The lengths of a text dataset's sequences, read as a run would read them (docs/sequences.md).
struct TextLengths {
  std::vector<int64_t> bytes;  ///< each sequence's bytes, after cutting to max_len
  int64_t max_len = 0;         ///< the limit they were cut to
  int64_t cut = 0;             ///< sequences longer than the limit
  int64_t skipped = 0;         ///< fortunes: quotes left out (not UTF-8 text)
};

/// The sequences' lengths of `config.data` (fortunes or text:FILE) under its split and
/// max_len. Throws InputError as loading the dataset would (the file, the line, the byte).
TextLengths textLengths(const ExperimentConfig& config);

/// A few lines for a tooltip: the count, median and longest, how many were cut, and a
/// histogram of the lengths in `bins` equal bins up to the limit, a bar of █ per bin scaled
/// to `width` characters.
std::string textLengthHistogram(const TextLengths& lengths, int bins = 8, int width = 24);

}  // namespace accumlab
