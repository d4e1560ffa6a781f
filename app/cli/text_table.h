// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <vector>

namespace accumlab::cli {

/// A plain aligned text table: columns separated by two spaces, numbers right-aligned.
class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header);
  /// Appends a row; it may be shorter than the header.
  void add(std::vector<std::string> row);
  /// The table, one line per row, header first.
  std::string str() const;

 private:
  std::vector<std::vector<std::string>> rows_;
};

/// A number for a table: "-" for NaN, else printf-formatted with `fmt`.
std::string cell(double v, const char* fmt = "%.4g");

}  // namespace accumlab::cli
