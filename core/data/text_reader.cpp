// SPDX-License-Identifier: GPL-3.0-or-later
#include "data/text_reader.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "accumlab/input_error.h"
#include "accumlab/input_file.h"
#include "accumlab/text_file.h"
#include "accumlab/text_lengths.h"

namespace accumlab {

namespace {

// Larger text files would make rows of a size nobody trains on a laptop.
constexpr std::uintmax_t kMaxTextBytes = 256u << 20;

std::string readWhole(const std::string& path, const ReadStop& stop) {
  return readWholeFile(path, {"a text dataset", kMaxTextBytes}, stop);
}

// Throws when `text` holds a byte that is not text, naming its offset and line.
void requireText(const std::string& text, const std::string& source) {
  if (const std::string problem = nonTextProblem(source, "dataset", text); !problem.empty()) {
    throw InputError(problem);
  }
}

// Calls `each` with every line of `text`, without its line end (LF or CR LF) and the
// byte-order mark, one at a time: millions of short lines are never all held at once.
template <typename Each>
void forEachLine(const std::string& text, Each each) {
  size_t begin = text.rfind("\xEF\xBB\xBF", 0) == 0 ? 3 : 0;
  std::string line;
  while (begin < text.size()) {
    size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    size_t stop = end;
    if (stop > begin && text[stop - 1] == '\r') --stop;
    line.assign(text, begin, stop - begin);
    each(line);
    begin = end + 1;
  }
}

bool blank(const std::string& line) { return line.find_first_not_of(" \t") == std::string::npos; }

// Rows are padded to the longest sequence: a file of millions of one-byte lines beside one
// long line would make gigabytes of rows from megabytes of text. Both limits hold the rows
// to about 1 GiB (2^22 sequences of the default --max-len 256 fill it).
constexpr size_t kMaxTextSequences = size_t{1} << 22;
constexpr uint64_t kMaxTextRowBytes = uint64_t{1} << 30;

std::string withCommas(uint64_t n) {
  std::string digits = std::to_string(n);
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) digits.insert(i, ",");
  return digits;
}

void add(TextSequences& out, std::string sequence, int64_t max_len, const std::string& source) {
  if (out.sequences.size() == kMaxTextSequences) {
    throw InputError(source + " holds more than " + withCommas(kMaxTextSequences) +
                     " sequences; a text dataset takes at most that many (split a smaller file, "
                     "or use --text-split paragraph)");
  }
  if (static_cast<int64_t>(sequence.size()) > max_len) {
    sequence.resize(static_cast<size_t>(max_len));
    ++out.cut;
  }
  out.sequences.push_back(std::move(sequence));
}

void requireSome(const TextSequences& out, const std::string& source, const char* what) {
  if (out.sequences.empty()) {
    throw InputError(source + " holds no " + what +
                     " with text; a text dataset needs at least two sequences");
  }
}

}  // namespace

TextSequences splitText(const std::string& text, const std::string& source, TextSplit split,
                        int64_t max_len) {
  requireText(text, source);
  TextSequences out;
  std::string paragraph;
  forEachLine(text, [&](const std::string& line) {
    if (split == TextSplit::kLine) {
      if (!blank(line)) add(out, line, max_len, source);
      return;
    }
    if (blank(line)) {
      if (!paragraph.empty()) add(out, std::move(paragraph), max_len, source);
      paragraph.clear();
    } else {
      paragraph += (paragraph.empty() ? "" : "\n") + line;
    }
  });
  if (!paragraph.empty()) add(out, std::move(paragraph), max_len, source);
  requireSome(out, source, split == TextSplit::kLine ? "line" : "paragraph");
  return out;
}

TextSequences splitFortunes(const std::string& text, const std::string& source, int64_t max_len) {
  TextSequences out;
  std::string quote;
  auto end_quote = [&] {
    // A few quotes draw with backspaces (overstrike) or hold Latin-1 bytes: left out.
    if (firstNonTextByte(quote) != std::string::npos) {
      ++out.skipped;
    } else if (!blank(quote)) {
      add(out, std::move(quote), max_len, source);
    }
    quote.clear();
  };
  forEachLine(text, [&](const std::string& line) {
    if (line == "%") {
      end_quote();
    } else {
      quote += (quote.empty() ? "" : "\n") + line;
    }
  });
  end_quote();
  requireSome(out, source, "quote");
  return out;
}

Dataset makeTextDataset(const TextSequences& text, const std::string& name,
                        const ExperimentConfig& config) {
  const int64_t n = static_cast<int64_t>(text.sequences.size());
  if (n < 2) {
    throw InputError(name + " holds " + std::to_string(n) +
                     " sequence; a text dataset needs at least two (one to validate on)");
  }
  size_t longest = 0;
  for (const auto& s : text.sequences) longest = std::max(longest, s.size());
  const int64_t width = static_cast<int64_t>(longest) + 2;  // kTextStart … kTextEnd
  if (static_cast<uint64_t>(n) * static_cast<uint64_t>(width) > kMaxTextRowBytes) {
    throw InputError(name + " holds " + withCommas(static_cast<uint64_t>(n)) +
                     " sequences padded to its longest, " + withCommas(longest) +
                     " bytes: " + std::to_string((static_cast<uint64_t>(n) * width) >> 20) +
                     " MiB of rows, more than the 1024 MiB a text dataset may take; lower "
                     "--max-len or use fewer sequences");
  }
  torch::Tensor x = torch::full({n, width}, kTextPad, torch::kUInt8);
  torch::Tensor len = torch::empty({n}, torch::kLong);
  uint8_t* rows = x.data_ptr<uint8_t>();
  int64_t* lengths = len.data_ptr<int64_t>();
  for (int64_t i = 0; i < n; ++i) {
    const std::string& s = text.sequences[static_cast<size_t>(i)];
    uint8_t* row = rows + i * width;
    row[0] = kTextStart;
    std::copy(s.begin(), s.end(), row + 1);
    row[s.size() + 1] = kTextEnd;
    lengths[i] = static_cast<int64_t>(s.size()) + 2;
  }
  Dataset ds;
  ds.name = name;
  ds.task = Task::kClassification;
  ds.num_outputs = kTextVocabulary;
  ds.sample_shape = {width};
  ds.token_loss = config.token_loss;
  splitTextTrainVal(ds, x, len, config.val_fraction, config.seed);
  return ds;
}

TextSequences readTextFile(const std::string& path, const ExperimentConfig& config,
                           const ReadStop& stop) {
  const std::string text = readWhole(path, stop);
  if (text.empty()) throw InputError(path + " is empty; a text dataset needs lines of text");
  return splitText(text, path, config.text_split, config.max_len);
}

Dataset loadTextFile(const std::string& path, const ExperimentConfig& config,
                     const ReadStop& stop) {
  return makeTextDataset(readTextFile(path, config, stop), "text:" + path, config);
}

TextSequences readFortunes(const std::string& dir, const ExperimentConfig& config,
                           const ReadStop& stop) {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const auto& p = entry.path();
    // name.dat is fortune's index of name; name.u8 links to name.
    if (!entry.is_regular_file() || entry.is_symlink() || p.has_extension()) continue;
    files.push_back(p);
  }
  if (files.empty()) {
    throw InputError(std::string("the fortunes are not installed in ") + dir +
                     ": install the Debian package fortunes (scripts/setup does), or give a "
                     "text file with --data text:FILE");
  }
  std::sort(files.begin(), files.end());
  TextSequences all;
  for (const auto& f : files) {
    TextSequences one = splitFortunes(readWhole(f.string(), stop), f.string(), config.max_len);
    all.cut += one.cut;
    all.skipped += one.skipped;
    for (auto& s : one.sequences) all.sequences.push_back(std::move(s));
  }
  return all;
}

Dataset loadFortunes(const std::string& dir, const ExperimentConfig& config, const ReadStop& stop) {
  return makeTextDataset(readFortunes(dir, config, stop), "fortunes", config);
}

TextLengths textLengths(const ExperimentConfig& config) {
  if (!isTextData(config.data)) {
    throw InputError("dataset '" + config.data + "' is not text (fortunes or text:FILE)");
  }
  const TextSequences text = config.data == "fortunes"
                                 ? readFortunes(kFortunesDir, config)
                                 : readTextFile(config.data.substr(5), config);
  TextLengths out;
  out.max_len = config.max_len;
  out.cut = text.cut;
  out.skipped = text.skipped;
  out.bytes.reserve(text.sequences.size());
  for (const std::string& s : text.sequences) out.bytes.push_back(static_cast<int64_t>(s.size()));
  return out;
}

std::string textLengthHistogram(const TextLengths& lengths, int bins, int width) {
  if (lengths.bytes.empty() || bins < 1) return "";
  std::vector<int64_t> sorted = lengths.bytes;
  std::sort(sorted.begin(), sorted.end());
  const int64_t top = std::max<int64_t>(lengths.max_len, sorted.back());
  const int64_t step = std::max<int64_t>(1, (top + bins - 1) / bins);
  std::vector<int64_t> counts(static_cast<size_t>(bins), 0);
  for (int64_t b : sorted) {
    ++counts[static_cast<size_t>(std::min<int64_t>(bins - 1, std::max<int64_t>(0, b - 1) / step))];
  }
  const int64_t most = *std::max_element(counts.begin(), counts.end());
  std::string out = std::to_string(sorted.size()) + " sequences, median " +
                    std::to_string(sorted[sorted.size() / 2]) + " bytes, longest " +
                    std::to_string(sorted.back());
  if (lengths.cut > 0) {
    out += "; " + std::to_string(lengths.cut) + " cut to " + std::to_string(lengths.max_len);
  }
  if (lengths.skipped > 0) out += "; " + std::to_string(lengths.skipped) + " left out";
  for (int i = 0; i < bins; ++i) {
    const int64_t low = i * step + 1;
    const int64_t high = (i + 1) * step;
    char range[64];  // two int64 of up to 19 digits, the dash and spaces
    std::snprintf(range, sizeof range, "\n%4lld–%-4lld ", static_cast<long long>(low),
                  static_cast<long long>(high));
    out += range;
    const auto count = counts[static_cast<size_t>(i)];
    const int bar = most > 0 ? static_cast<int>((count * width + most - 1) / most) : 0;
    for (int k = 0; k < bar; ++k) out += "█";
    out += " " + std::to_string(count);
  }
  return out;
}

}  // namespace accumlab
