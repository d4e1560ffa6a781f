// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <vector>

#include "accumlab/experiment_config.h"
#include "accumlab/input_file.h"
#include "data/dataset.h"

namespace accumlab {

/// The text of a text dataset, one entry per sequence, before it becomes rows.
struct TextSequences {
  std::vector<std::string> sequences;
  int64_t cut = 0;      ///< sequences longer than the limit, cut to it
  int64_t skipped = 0;  ///< fortunes: quotes left out for bytes that are not UTF-8 text
};

/// Splits UTF-8 `text` (from `source`, named in errors) into sequences: one per non-empty
/// line, or per paragraph (lines up to a blank line, their line breaks kept). CR before LF
/// and a byte-order mark are dropped; each sequence keeps at most `max_len` bytes. Throws
/// InputError naming the source, the line and the byte offset for a control byte or invalid
/// UTF-8, and for text with no sequence.
TextSequences splitText(const std::string& text, const std::string& source, TextSplit split,
                        int64_t max_len);

/// Splits a fortune file (quotes ended by a line holding a single '%') into its quotes, each
/// cut to `max_len` bytes. A quote holding control bytes (backspace overstrike art) or
/// invalid UTF-8 is left out and counted; a file with no quote left throws InputError.
TextSequences splitFortunes(const std::string& text, const std::string& source, int64_t max_len);

/// A text dataset of `sequences` (rows as described at kTextStart), split for validation.
/// Throws InputError naming `name` when there are fewer than two sequences.
Dataset makeTextDataset(const TextSequences& sequences, const std::string& name,
                        const ExperimentConfig& config);

/// The sequences of a text file under `config`'s split and max_len (loadTextFile's reading).
/// Reads at most 256 MiB, only from a regular file, asking `stop` between chunks.
TextSequences readTextFile(const std::string& path, const ExperimentConfig& config,
                           const ReadStop& stop = ReadStop());

/// `--data text:FILE`: loadDataset's text reader.
Dataset loadTextFile(const std::string& path, const ExperimentConfig& config,
                     const ReadStop& stop = ReadStop());

/// The quotes loadFortunes reads from `dir`, cut to `config.max_len`.
TextSequences readFortunes(const std::string& dir, const ExperimentConfig& config,
                           const ReadStop& stop = ReadStop());

/// `--data fortunes`: every fortune file in `dir` (Debian's fortunes, fortunes-min), in name
/// order; offensive and non-UTF-8 files are not read. Throws InputError naming the package
/// when the folder holds none.
Dataset loadFortunes(const std::string& dir, const ExperimentConfig& config,
                     const ReadStop& stop = ReadStop());

}  // namespace accumlab
