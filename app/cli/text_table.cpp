// SPDX-License-Identifier: GPL-3.0-or-later
#include "text_table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace accumlab::cli {

namespace {

/// Characters on screen, not bytes (UTF-8 names such as "trΣ").
size_t width(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

/// Numbers, percentages and "32 (×0.125)" ratios; not "8 x 1" or dates.
bool looksNumeric(const std::string& s) {
  if (s.empty()) return false;
  const auto first = static_cast<unsigned char>(s[0]);
  if (!std::isdigit(first) && !(s.size() > 1 && (s[0] == '-' || s[0] == '+'))) return false;
  for (unsigned char c : s) {
    if (c < 0x80 && !std::isdigit(c) &&
        std::string(".-+e%() ").find(static_cast<char>(c)) == std::string::npos) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::string cell(double v, const char* fmt) {
  if (!std::isfinite(v)) return "-";
  char buf[48];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

TextTable::TextTable(std::vector<std::string> header) { rows_.push_back(std::move(header)); }

void TextTable::add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }

std::string TextTable::str() const {
  std::vector<size_t> w;
  for (const auto& row : rows_) {
    if (w.size() < row.size()) w.resize(row.size(), 0);
    for (size_t i = 0; i < row.size(); ++i) w[i] = std::max(w[i], width(row[i]));
  }
  std::ostringstream out;
  for (size_t r = 0; r < rows_.size(); ++r) {
    std::string line;
    for (size_t i = 0; i < rows_[r].size(); ++i) {
      const std::string& s = rows_[r][i];
      const std::string pad(w[i] - width(s), ' ');
      const bool right = r > 0 && looksNumeric(s);
      line += right ? pad + s : s + pad;
      if (i + 1 < rows_[r].size()) line += "  ";
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << '\n';
  }
  return out.str();
}

}  // namespace accumlab::cli
