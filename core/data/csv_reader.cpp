// SPDX-License-Identifier: GPL-3.0-or-later
#include "data/csv_reader.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <map>
#include <string_view>

#include "accumlab/input_error.h"
#include "accumlab/text_file.h"
#include "data/byte_reader.h"

namespace accumlab {
namespace {

// Lines looked at to pick the delimiter.
constexpr size_t kSniffLines = 20;
// Auto task: integer labels with at most this many distinct values are classes.
constexpr size_t kMaxAutoClasses = 20;
// More distinct labels than this is almost surely a regression target, not classes.
constexpr size_t kMaxClasses = 1000;
// A feature whose spread is below this is constant: it is centred but not scaled.
constexpr double kMinStd = 1e-12;
constexpr char kDelimiters[] = {',', ';', '\t'};

struct Line {
  int number;  // 1-based, as an editor shows it
  std::string_view text;
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

// The whole cell must be a number ("1", "-2.5e3", "+4"); NaN and infinities count as numbers
// here and are rejected by the caller with a clearer message.
bool parseNumber(std::string_view s, double* out) {
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty()) return false;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && end == s.data() + s.size();
}

bool isNumber(std::string_view s) {
  double v;
  return parseNumber(trim(s), &v);
}

std::vector<Line> splitLines(const std::string& text) {
  std::vector<Line> lines;
  std::string_view rest(text);
  if (rest.substr(0, 3) == "\xEF\xBB\xBF") rest.remove_prefix(3);  // UTF-8 byte-order mark
  int number = 0;
  while (!rest.empty()) {
    const size_t end = rest.find('\n');
    std::string_view line = rest.substr(0, end);
    rest.remove_prefix(end == std::string_view::npos ? rest.size() : end + 1);
    ++number;
    if (!trim(line).empty()) lines.push_back({number, line});
  }
  return lines;
}

// Splits one line into cells; double quotes protect delimiters, "" is a literal quote.
std::vector<std::string> splitCells(const std::string& path, const Line& line, char delim) {
  std::vector<std::string> cells;
  std::string cell;
  bool quoted = false;
  bool was_quoted = false;
  const std::string_view t = line.text;
  for (size_t i = 0; i < t.size(); ++i) {
    const char c = t[i];
    if (quoted) {
      if (c == '"' && i + 1 < t.size() && t[i + 1] == '"') {
        cell += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cell += c;
      }
    } else if (c == '"' && trim(cell).empty()) {
      quoted = was_quoted = true;
      cell.clear();
    } else if (c == delim) {
      cells.push_back(was_quoted ? cell : std::string(trim(cell)));
      cell.clear();
      was_quoted = false;
    } else {
      cell += c;
    }
  }
  if (quoted) {
    throw InputError(path + " line " + std::to_string(line.number) +
                     ": a quoted cell is not closed (quoted line breaks are not supported)");
  }
  cells.push_back(was_quoted ? cell : std::string(trim(cell)));
  return cells;
}

// The delimiter that splits the first lines into the same number (> 1) of cells, the most
// cells winning; when none is consistent, the one giving line 1 the most cells.
char sniffDelimiter(const std::string& path, const std::vector<Line>& lines) {
  char best = 0;
  size_t best_cells = 1;
  char fallback = 0;
  size_t fallback_cells = 1;
  for (char d : kDelimiters) {
    const size_t first = splitCells(path, lines[0], d).size();
    bool consistent = true;
    for (size_t i = 1; i < std::min(lines.size(), kSniffLines) && consistent; ++i) {
      consistent = splitCells(path, lines[i], d).size() == first;
    }
    if (consistent && first > best_cells) {
      best = d;
      best_cells = first;
    }
    if (first > fallback_cells) {
      fallback = d;
      fallback_cells = first;
    }
  }
  if (best) return best;
  if (fallback) return fallback;
  throw InputError(path + " has a single column (no ',', ';' or tab on line " +
                   std::to_string(lines[0].number) +
                   "); a CSV needs at least one feature column and a label column");
}

// A header is a first row with text where the second row has a number, or one naming the label.
bool looksLikeHeader(const std::vector<std::string>& first, const std::vector<std::string>& second,
                     const std::string& label) {
  if (!label.empty() && !isNumber(label) &&
      std::find(first.begin(), first.end(), label) != first.end()) {
    return true;
  }
  for (size_t c = 0; c < std::min(first.size(), second.size()); ++c) {
    if (!isNumber(first[c]) && isNumber(second[c])) return true;
  }
  return false;
}

bool isIndex(const std::string& s, size_t* out) {
  const auto digit = [](unsigned char c) { return std::isdigit(c) != 0; };
  if (s.empty() || s.size() > 9 || !std::all_of(s.begin(), s.end(), digit)) return false;
  *out = std::stoul(s);
  return true;
}

}  // namespace

Dataset loadCsv(const std::string& path, const std::string& label, Task task, double val_fraction,
                uint64_t seed) {
  const std::string text = ByteReader(path).readAll();
  // Random bytes would fail later as an "empty cell"; say what the file is instead.
  if (const std::string problem = nonTextProblem(path, "CSV", text); !problem.empty()) {
    throw InputError(problem);
  }
  const std::vector<Line> lines = splitLines(text);
  if (lines.empty()) throw InputError(path + " holds only blank lines; a CSV needs data rows");
  const char delim = sniffDelimiter(path, lines);
  const std::vector<std::string> first = splitCells(path, lines[0], delim);
  const size_t cols = first.size();
  const bool header =
      looksLikeHeader(first, lines.size() > 1 ? splitCells(path, lines[1], delim) : first, label);
  if (header && lines.size() < 2) throw InputError(path + " has a header row but no data rows");

  auto columnText = [&](size_t c) {
    return header ? "column '" + first[c] + "' (index " + std::to_string(c) + ")"
                  : "column index " + std::to_string(c);
  };
  size_t label_col = cols - 1;
  if (!label.empty()) {
    const auto named = header ? std::find(first.begin(), first.end(), label) : first.end();
    if (named != first.end()) {
      label_col = static_cast<size_t>(named - first.begin());
    } else if (!isIndex(label, &label_col) || label_col >= cols) {
      std::string columns;
      for (size_t c = 0; c < cols && header; ++c) columns += (c ? ", " : "") + first[c];
      throw InputError(path + " has no label column '" + label + "' (" +
                       (header ? "its columns are " + columns + "; give a name or"
                               : "it has no header row; give") +
                       " a 0-based index from 0 to " + std::to_string(cols - 1) + " with --label)");
    }
  }

  // Parse: features as doubles, labels kept as text until the task is known.
  const size_t features = cols - 1;
  const size_t start = header ? 1 : 0;
  const auto rows = static_cast<int64_t>(lines.size() - start);
  std::vector<float> x(static_cast<size_t>(rows) * features);
  std::vector<std::string> labels(static_cast<size_t>(rows));
  std::vector<int> label_lines(static_cast<size_t>(rows));
  for (size_t r = start; r < lines.size(); ++r) {
    const std::vector<std::string> cells = splitCells(path, lines[r], delim);
    const std::string where = path + " line " + std::to_string(lines[r].number);
    if (cells.size() != cols) {
      throw InputError(where + " has " + std::to_string(cells.size()) + " cells, but line " +
                       std::to_string(lines[0].number) + " has " + std::to_string(cols) +
                       "; every row needs the same number of cells");
    }
    const size_t row = r - start;
    float* out = x.data() + row * features;
    for (size_t c = 0; c < cols; ++c) {
      if (c == label_col) continue;
      const std::string& cell = cells[c];
      double v = 0;
      if (cell.empty()) {
        throw InputError(
            where + ", " + columnText(c) +
            ": the cell is empty; missing values are not supported, fill or drop the row");
      }
      if (!parseNumber(cell, &v)) {
        throw InputError(where + ", " + columnText(c) + ": '" + cell +
                         "' is not a number; every column except the label must be numeric");
      }
      if (!std::isfinite(v)) {
        throw InputError(where + ", " + columnText(c) + ": '" + cell + "' is not a finite number");
      }
      *out++ = static_cast<float>(v);
    }
    if (cells[label_col].empty()) {
      throw InputError(where + ", label " + columnText(label_col) + ": the label is empty");
    }
    labels[row] = cells[label_col];
    label_lines[row] = lines[r].number;
  }

  // Decide the task from the labels when the user did not.
  bool all_numeric = true;
  bool all_integer = true;
  std::map<double, std::string> numeric_classes;
  std::map<std::string, int64_t> text_classes;
  std::vector<double> values(labels.size());
  for (size_t i = 0; i < labels.size(); ++i) {
    double v = 0;
    if (parseNumber(labels[i], &v) && std::isfinite(v)) {
      values[i] = v;
      all_integer = all_integer && v == std::floor(v);
      if (numeric_classes.size() <= kMaxClasses) numeric_classes.emplace(v, labels[i]);
    } else {
      all_numeric = false;
      if (task == Task::kRegression) {
        throw InputError(path + " line " + std::to_string(label_lines[i]) + ", label " +
                         columnText(label_col) + ": '" + labels[i] +
                         "' is not a number, but regression needs numeric labels");
      }
    }
    if (text_classes.size() <= kMaxClasses) text_classes.emplace(labels[i], 0);
  }
  const std::string label_name = path + " label " + columnText(label_col);
  if (task == Task::kAuto) {
    if (!all_numeric || (all_integer && numeric_classes.size() <= kMaxAutoClasses)) {
      task = Task::kClassification;
    } else if (!all_integer) {
      task = Task::kRegression;
    } else {
      throw InputError(label_name + " holds " + std::to_string(numeric_classes.size()) +
                       (numeric_classes.size() > kMaxClasses ? "+" : "") +
                       " distinct integers, which could be classes or values; choose with "
                       "--task classification or --task regression");
    }
  }

  Dataset ds;
  ds.name = "csv:" + path;
  ds.task = task;
  ds.sample_shape = {static_cast<int64_t>(features)};
  torch::Tensor full_x =
      torch::from_blob(x.data(), {rows, static_cast<int64_t>(features)}, torch::kFloat32).clone();
  torch::Tensor full_y;
  if (task == Task::kRegression) {
    ds.num_outputs = 1;
    full_y = torch::tensor(values, torch::kFloat64).to(torch::kFloat32).unsqueeze(1);
  } else {
    const size_t classes = all_numeric ? numeric_classes.size() : text_classes.size();
    if (classes > kMaxClasses) {
      throw InputError(label_name + " holds more than " + std::to_string(kMaxClasses) +
                       " distinct labels; use --task regression for a numeric target");
    }
    if (classes < 2) {
      throw InputError(label_name + " holds one class only ('" + labels.front() +
                       "'); classification needs at least two classes");
    }
    // Sorted order: numerically for numbers, by text otherwise, so indices are stable.
    std::map<std::string, int64_t> index;
    if (all_numeric) {
      for (const auto& [v, name] : numeric_classes) {
        index[name] = static_cast<int64_t>(ds.class_names.size());
        ds.class_names.push_back(name);
      }
    } else {
      for (auto& [name, i] : text_classes) {
        index[name] = static_cast<int64_t>(ds.class_names.size());
        ds.class_names.push_back(name);
      }
    }
    full_y = torch::empty({rows}, torch::kLong);
    int64_t* y = full_y.data_ptr<int64_t>();
    for (size_t i = 0; i < labels.size(); ++i) {
      // Numeric labels written differently ("1" and "1.0") are one class.
      y[i] = all_numeric ? index.at(numeric_classes.at(values[i])) : index.at(labels[i]);
    }
    ds.num_outputs = static_cast<int64_t>(classes);
  }
  splitTrainVal(ds, full_x, full_y, val_fraction, seed);

  // Standardise with the training split only: the validation split must stay unseen.
  torch::Tensor mean = ds.train_x.to(torch::kFloat64).mean(0);
  torch::Tensor sd = ds.train_x.to(torch::kFloat64).std(0, /*unbiased=*/false);
  sd = torch::where(sd < kMinStd, torch::ones_like(sd), sd);
  ds.train_x = ((ds.train_x.to(torch::kFloat64) - mean) / sd).to(torch::kFloat32).contiguous();
  if (ds.valSize() > 0) {
    ds.val_x = ((ds.val_x.to(torch::kFloat64) - mean) / sd).to(torch::kFloat32).contiguous();
  }
  return ds;
}

}  // namespace accumlab
