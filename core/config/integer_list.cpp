// SPDX-License-Identifier: GPL-3.0-or-later
#include "accumlab/integer_list.h"

#include <sstream>
#include <stdexcept>

#include "accumlab/input_error.h"

namespace accumlab {

std::vector<int64_t> parsePositiveIntegers(const std::string& text, char separator,
                                           const std::string& problem) {
  std::vector<int64_t> values;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, separator)) {
    size_t used = 0;
    long long v = 0;
    try {
      v = std::stoll(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != item.size() || v < 1) {
      throw InputError(problem + ", found '" + item + "'");
    }
    values.push_back(v);
  }
  return values;
}

}  // namespace accumlab
