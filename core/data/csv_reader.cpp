// SPDX-License-Identifier: GPL-3.0-or-later
#include "data/csv_reader.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <map>
#include <string_view>
#include <unordered_map>

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
// The most text a CSV dataset may hold (after gunzip). Parsing holds about the text's size
// again as numbers, so the peak stays near twice the file, within a laptop's memory.
constexpr uint64_t kMaxCsvBytes = uint64_t{1} << 30;
// The stop is asked every this many rows while they are parsed.
constexpr size_t kRowsBetweenStops = 4096;

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

// The non-blank lines of a text, one at a time: a CSV of short rows would need more memory
// for a list of its lines than for the text itself.
class LineCursor {
 public:
  explicit LineCursor(std::string_view text) : rest_(text) {
    if (rest_.substr(0, 3) == "\xEF\xBB\xBF") rest_.remove_prefix(3);  // UTF-8 byte-order mark
  }
  /// The next line with text into `line`; false at the end.
  bool next(Line* line) {
    while (!rest_.empty()) {
      const size_t end = rest_.find('\n');
      const std::string_view text = rest_.substr(0, end);
      rest_.remove_prefix(end == std::string_view::npos ? rest_.size() : end + 1);
      ++number_;
      if (!trim(text).empty()) {
        *line = {number_, text};
        return true;
      }
    }
    return false;
  }

 private:
  std::string_view rest_;
  int number_ = 0;
};

// Splits one line into `cells`, reusing their storage (a CSV has millions of rows); double
// quotes protect delimiters, "" is a literal quote.
void splitCellsInto(const std::string& path, const Line& line, char delim,
                    std::vector<std::string>& cells) {
  size_t count = 0;
  std::string cell;
  const auto push = [&](std::string_view text) {
    if (count == cells.size()) cells.emplace_back();
    cells[count++].assign(text.data(), text.size());
  };
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
      push(was_quoted ? std::string_view(cell) : trim(cell));
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
  push(was_quoted ? std::string_view(cell) : trim(cell));
  cells.resize(count);
}

std::vector<std::string> splitCells(const std::string& path, const Line& line, char delim) {
  std::vector<std::string> cells;
  splitCellsInto(path, line, delim, cells);
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
                uint64_t seed, const ReadStop& stop) {
  ByteReader reader(path, {"a CSV dataset", kMaxCsvBytes}, stop);
  // A binary file is refused from its first 64 KiB, before the whole of it is read.
  if (!reader.compressed()) checkTextFile(path, "CSV");
  std::string text = reader.readAll();
  // Random bytes would fail later as an "empty cell"; say what the file is instead.
  if (const std::string problem = nonTextProblem(path, "CSV", text); !problem.empty()) {
    throw InputError(problem);
  }
  // The first lines pick the delimiter and the header; the rest are only counted here.
  std::vector<Line> lines;
  size_t line_count = 0;
  {
    LineCursor cursor(text);
    for (Line line; cursor.next(&line); ++line_count) {
      if (line_count % kRowsBetweenStops == 0) stop.check(path);
      if (lines.size() < kSniffLines) lines.push_back(line);
    }
  }
  if (lines.empty()) throw InputError(path + " holds only blank lines; a CSV needs data rows");
  const char delim = sniffDelimiter(path, lines);
  const std::vector<std::string> first = splitCells(path, lines[0], delim);
  const size_t cols = first.size();
  const bool header =
      looksLikeHeader(first, lines.size() > 1 ? splitCells(path, lines[1], delim) : first, label);
  if (header && line_count < 2) throw InputError(path + " has a header row but no data rows");

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

  // Parse: features straight into their tensor; of each label its value, when it is a
  // number, and its text's class (first kMaxClasses + 1 distinct texts), until the task is
  // known. A row costs its features and 12 bytes, never a copy of its text.
  const size_t features = cols - 1;
  const size_t start = header ? 1 : 0;
  const auto rows = static_cast<int64_t>(line_count - start);
  torch::Tensor full_x = torch::empty({rows, static_cast<int64_t>(features)}, torch::kFloat32);
  float* x = full_x.data_ptr<float>();
  std::vector<double> values(static_cast<size_t>(rows));
  std::vector<int32_t> text_ids(static_cast<size_t>(rows));  // -1: past the distinct texts kept
  std::unordered_map<std::string, int32_t> text_index;
  std::vector<std::string> label_texts;  // distinct label texts, first seen first
  bool all_numeric = true;
  bool all_integer = true;
  std::map<double, std::string> numeric_classes;
  int first_text_label_line = 0;  // the first label that is not a number, for regression
  std::string first_text_label;
  LineCursor cursor(text);
  Line line;
  std::vector<std::string> cells;
  for (size_t r = 0; cursor.next(&line); ++r) {
    if (r % kRowsBetweenStops == 0) stop.check(path);
    if (r < start) continue;
    splitCellsInto(path, line, delim, cells);
    const auto where = [&] { return path + " line " + std::to_string(line.number); };
    if (cells.size() != cols) {
      throw InputError(where() + " has " + std::to_string(cells.size()) + " cells, but line " +
                       std::to_string(lines[0].number) + " has " + std::to_string(cols) +
                       "; every row needs the same number of cells");
    }
    const size_t row = r - start;
    float* out = x + row * features;
    for (size_t c = 0; c < cols; ++c) {
      if (c == label_col) continue;
      const std::string& cell = cells[c];
      double v = 0;
      if (cell.empty()) {
        throw InputError(
            where() + ", " + columnText(c) +
            ": the cell is empty; missing values are not supported, fill or drop the row");
      }
      if (!parseNumber(cell, &v)) {
        throw InputError(where() + ", " + columnText(c) + ": '" + cell +
                         "' is not a number; every column except the label must be numeric");
      }
      if (!std::isfinite(v)) {
        throw InputError(where() + ", " + columnText(c) + ": '" + cell +
                         "' is not a finite number");
      }
      *out++ = static_cast<float>(v);
    }
    const std::string& label_text = cells[label_col];
    if (label_text.empty()) {
      throw InputError(where() + ", label " + columnText(label_col) + ": the label is empty");
    }
    double v = 0;
    if (parseNumber(label_text, &v) && std::isfinite(v)) {
      values[row] = v;
      all_integer = all_integer && v == std::floor(v);
      if (numeric_classes.size() <= kMaxClasses) numeric_classes.emplace(v, label_text);
    } else {
      if (all_numeric) {
        first_text_label_line = line.number;
        first_text_label = label_text;
      }
      all_numeric = false;
    }
    int32_t id = -1;
    if (const auto known = text_index.find(label_text); known != text_index.end()) {
      id = known->second;
    } else if (text_index.size() <= kMaxClasses) {
      id = static_cast<int32_t>(label_texts.size());
      text_index.emplace(label_text, id);
      label_texts.push_back(label_text);
    }
    text_ids[row] = id;
  }
  // The text is parsed: free it before the tensors are standardised.
  std::string().swap(text);
  if (!all_numeric && task == Task::kRegression) {
    throw InputError(path + " line " + std::to_string(first_text_label_line) + ", label " +
                     columnText(label_col) + ": '" + first_text_label +
                     "' is not a number, but regression needs numeric labels");
  }

  // Decide the task from the labels when the user did not.
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
  torch::Tensor full_y;
  if (task == Task::kRegression) {
    ds.num_outputs = 1;
    full_y = torch::tensor(values, torch::kFloat64).to(torch::kFloat32).unsqueeze(1);
  } else {
    const size_t classes = all_numeric ? numeric_classes.size() : text_index.size();
    if (classes > kMaxClasses) {
      throw InputError(label_name + " holds more than " + std::to_string(kMaxClasses) +
                       " distinct labels; use --task regression for a numeric target");
    }
    if (classes < 2) {
      throw InputError(label_name + " holds one class only ('" + label_texts.front() +
                       "'); classification needs at least two classes");
    }
    // Sorted order: numerically for numbers, by text otherwise, so indices are stable.
    full_y = torch::empty({rows}, torch::kLong);
    int64_t* y = full_y.data_ptr<int64_t>();
    if (all_numeric) {
      std::map<double, int64_t> index;
      for (const auto& [v, name] : numeric_classes) {
        index[v] = static_cast<int64_t>(ds.class_names.size());
        ds.class_names.push_back(name);
      }
      // Numeric labels written differently ("1" and "1.0") are one class.
      for (size_t i = 0; i < values.size(); ++i) y[i] = index.at(values[i]);
    } else {
      std::vector<int32_t> by_text(label_texts.size());
      for (size_t i = 0; i < by_text.size(); ++i) by_text[i] = static_cast<int32_t>(i);
      std::sort(by_text.begin(), by_text.end(),
                [&](int32_t a, int32_t b) { return label_texts[a] < label_texts[b]; });
      std::vector<int64_t> rank(label_texts.size());
      for (size_t r = 0; r < by_text.size(); ++r) {
        rank[static_cast<size_t>(by_text[r])] = static_cast<int64_t>(r);
        ds.class_names.push_back(label_texts[static_cast<size_t>(by_text[r])]);
      }
      for (size_t i = 0; i < text_ids.size(); ++i) y[i] = rank[static_cast<size_t>(text_ids[i])];
    }
    ds.num_outputs = static_cast<int64_t>(classes);
  }
  std::vector<double>().swap(values);  // the labels are in full_y now
  std::vector<int32_t>().swap(text_ids);
  splitTrainVal(ds, full_x, full_y, val_fraction, seed);

  full_x = torch::Tensor();  // the splits hold the rows now
  full_y = torch::Tensor();

  // Standardise with the training split only: the validation split must stay unseen. In
  // float64, in place: one wide copy of a split at a time.
  torch::Tensor mean;
  torch::Tensor sd;
  {
    const torch::Tensor wide = ds.train_x.to(torch::kFloat64);
    mean = wide.mean(0);
    sd = wide.std(0, /*unbiased=*/false);
  }
  sd = torch::where(sd < kMinStd, torch::ones_like(sd), sd);
  const auto standardise = [&](torch::Tensor& split) {
    torch::Tensor wide = split.to(torch::kFloat64);
    split = torch::Tensor();
    wide.sub_(mean).div_(sd);
    split = wide.to(torch::kFloat32).contiguous();
  };
  standardise(ds.train_x);
  if (ds.valSize() > 0) standardise(ds.val_x);
  return ds;
}

}  // namespace accumlab
