// SPDX-License-Identifier: GPL-3.0-or-later
#include "store/tensorboard_writer.h"

#include <algorithm>
#include <boost/crc.hpp>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <utility>

#include "accumlab/input_error.h"
#include "records/record_fields.h"
#include "store/store_clock.h"

#ifdef ACCUMLAB_WITH_TENSORBOARD
#include "store/tensorboard_event.pb.h"
#endif

namespace accumlab::store {

namespace {

void appendLittleEndian(std::string& out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out += static_cast<char>((value >> (8 * i)) & 0xffu);
}

}  // namespace

uint32_t maskedCrc32c(std::string_view data) {
  // CRC-32C: the Castagnoli polynomial, reflected, all ones in and out.
  boost::crc_optimal<32, 0x1EDC6F41, 0xFFFFFFFF, 0xFFFFFFFF, true, true> crc;
  crc.process_bytes(data.data(), data.size());
  const uint32_t c = crc.checksum();
  return ((c >> 15) | (c << 17)) + 0xa282ead8u;
}

void appendTfRecord(std::string& out, std::string_view data) {
  std::string length;
  appendLittleEndian(length, data.size(), 8);
  out += length;
  appendLittleEndian(out, maskedCrc32c(length), 4);
  out.append(data);
  appendLittleEndian(out, maskedCrc32c(data), 4);
}

std::string tensorBoardRunName(const RunRow& row) {
  return std::to_string(row.id) + "-" + toString(row.arm);
}

#ifdef ACCUMLAB_WITH_TENSORBOARD

namespace {

namespace fs = std::filesystem;

/// The folder, created when missing; throws InputError naming `shown` when it cannot be.
void makeFolder(const fs::path& folder, const std::string& shown) {
  std::error_code ec;
  if (fs::exists(folder, ec) && !fs::is_directory(folder, ec)) {
    const bool top = folder.string() == shown;
    throw InputError("cannot write TensorBoard logs to " + shown + ": " +
                     (top ? std::string("it") : folder.string()) +
                     " is a file, not a folder; give a folder (it is created when missing)");
  }
  fs::create_directories(folder, ec);
  if (ec) throw InputError("cannot write TensorBoard logs to " + shown + " (" + ec.message() + ")");
}

/// One event file being written: records go to "<path>.partial", which commit() renames into
/// place, so that a failed export never leaves half a file for TensorBoard to read.
class EventFile {
 public:
  EventFile(fs::path path, std::string shown)
      : path_(std::move(path)), partial_(path_.string() + ".partial"), shown_(std::move(shown)) {
    out_.open(partial_, std::ios::binary | std::ios::trunc);
    if (!out_) fail();
  }
  ~EventFile() {
    if (committed_) return;
    out_.close();
    std::remove(partial_.c_str());
  }
  EventFile(const EventFile&) = delete;
  EventFile& operator=(const EventFile&) = delete;

  void write(const std::string& data) {
    buffer_.clear();
    appendTfRecord(buffer_, data);
    out_.write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
    if (!out_) fail();
  }

  void commit() {
    out_.close();
    if (!out_ || std::rename(partial_.c_str(), path_.c_str()) != 0) fail();
    committed_ = true;
  }

 private:
  [[noreturn]] void fail() {
    throw InputError("cannot write TensorBoard logs to " + shown_ + " (" + path_.string() + ": " +
                     std::strerror(errno) + ")");
  }

  fs::path path_;
  std::string partial_;
  std::string shown_;
  std::ofstream out_;
  std::string buffer_;
  bool committed_ = false;
};

/// TensorBoard groups tags by what comes before their first "/". Each step column's tag is
/// "<group>/<column>", the column named as in the CSV and JSON exports; a column missing
/// here is in "metrics/".
const char* groupOf(const std::string& column) {
  static const std::map<std::string, const char*> kGroups = {
      {"loss", "train"},
      {"mb_loss_mean", "train"},
      {"mb_loss_var", "train"},
      {"loss_var_rolling", "loss_variance"},
      {"loss_var_detrended", "loss_variance"},
      {"loss_var_count", "loss_variance"},
      {"g_small_sq", "noise"},
      {"g_big_sq", "noise"},
      {"b_small", "noise"},
      {"b_big", "noise"},
      {"trace_sigma_est", "noise"},
      {"g_sq_est", "noise"},
      {"trace_sigma_ema", "noise"},
      {"g_sq_ema", "noise"},
      {"b_simple", "noise"},
      {"noise_per_update", "noise"},
      {"grad_norm", "gradient"},
      {"grad_norm_applied", "gradient"},
      {"grad_equiv", "gradient"},
      {"grad_equiv_f64", "gradient"},
      {"weight_rel_diff", "gradient"},
      {"lr", "optimizer"},
      {"micro_batch", "batch"},
      {"accum", "batch"},
      {"window_samples", "batch"},
      {"probe", "batch"},
      {"samples_per_s", "performance"},
      {"memory_bytes", "performance"},
      {"peak_tensor_bytes", "performance"},
      {"allreduce_ms", "performance"},
  };
  const auto it = kGroups.find(column);
  return it == kGroups.end() ? "metrics" : it->second;
}

/// What one event record of the file holds: the scalars and event lines at one step.
struct Point {
  double wall_ms = kNaN;
  std::vector<std::pair<std::string, double>> scalars;     ///< tag, value
  std::string events;                                      ///< Markdown list lines
  std::vector<std::pair<std::string, std::string>> texts;  ///< tag, Markdown
};

/// A run's records on both x axes: optimizer steps, and samples seen ("by_samples/" tags).
/// Each tag's steps rise strictly, as TensorBoard expects of a series.
struct Timelines {
  std::map<int64_t, Point> by_step;
  std::map<int64_t, Point> by_samples;

  /// Adds a scalar; a NaN (not measured) is left out.
  void add(int64_t step, int64_t samples, double wall_ms, const std::string& tag, double value) {
    if (std::isnan(value)) return;
    at(by_step, step, wall_ms).scalars.emplace_back(tag, value);
    at(by_samples, samples, wall_ms).scalars.emplace_back("by_samples/" + tag, value);
  }
  /// Adds a text under `tag` (left out when empty).
  void addText(int64_t step, int64_t samples, double wall_ms, const std::string& tag,
               const std::string& markdown) {
    if (markdown.empty()) return;
    at(by_step, step, wall_ms).texts.emplace_back(tag, markdown);
    at(by_samples, samples, wall_ms).texts.emplace_back("by_samples/" + tag, markdown);
  }
  void addEvent(int64_t step, const EventRecord& e) {
    const std::string arm = armName(e);
    const std::string line = "- **" + toString(e.kind) + "**" +
                             (arm.empty() ? "" : " (" + arm + ")") + ": " + e.message + "\n";
    at(by_step, step, e.wall_ms).events += line;
    at(by_samples, e.samples_seen, e.wall_ms).events += line;
  }

 private:
  static Point& at(std::map<int64_t, Point>& line, int64_t x, double wall_ms) {
    Point& p = line[x];
    if (std::isnan(p.wall_ms)) p.wall_ms = wall_ms;
    return p;
  }
};

/// The step an event belongs to: the last step at or before its sample count (0 before any).
int64_t stepOf(const std::vector<StepRecord>& steps, int64_t samples_seen) {
  const auto after = std::upper_bound(
      steps.begin(), steps.end(), samples_seen,
      [](int64_t samples, const StepRecord& r) { return samples < r.samples_seen; });
  return after == steps.begin() ? 0 : std::prev(after)->step;
}

Timelines timelines(const ExportedRun& run) {
  Timelines t;
  for (const StepRecord& r : run.series.steps) {
    for (const auto& c : withoutAxes(stepFields())) {
      // A negative integer is "not measured" (peak_tensor_bytes -1).
      if (c.integer && r.*c.integer < 0) continue;
      t.add(r.step, r.samples_seen, r.wall_ms, std::string(groupOf(c.name)) + "/" + c.name,
            c.get(r));
    }
  }
  for (const EvalRecord& e : run.series.evals) {
    for (const auto& c : withoutAxes(evalFields())) {
      t.add(e.step, e.samples_seen, e.wall_ms, std::string("eval/") + c.name, c.get(e));
    }
    // An indented block: the model's bytes are shown as written, not read as Markdown.
    if (!e.text_sample.empty()) {
      t.addText(e.step, e.samples_seen, e.wall_ms, "eval/writes", "    " + e.text_sample);
    }
  }
  for (const ProbeRecord& p : run.series.probes) {
    for (const auto& c : withoutAxes(probeFields())) {
      t.add(p.step, p.samples_seen, p.wall_ms, std::string("probe/") + c.name, c.get(p));
    }
  }
  for (const EventRecord& e : run.detail.events) {
    t.addEvent(stepOf(run.series.steps, e.samples_seen), e);
  }
  return t;
}

/// A JSON object as a two-column Markdown table of its dotted keys and their JSON values.
std::string markdownTable(const std::string& json_object) {
  std::string out = "| key | value |\n|---|---|\n";
  for (const auto& [key, value] : flattenConfig(json_object)) {
    std::string cell;
    for (char c : value) cell += c == '|' ? std::string("\\|") : std::string(1, c);
    out += "| " + key + " | " + cell + " |\n";
  }
  return out;
}

/// The run in a few Markdown lines: what it is, how it ended, where it ran.
std::string runText(const RunDetail& d) {
  const RunRow& r = d.row;
  std::string tags;
  for (const std::string& tag : r.tags) tags += (tags.empty() ? "" : ", ") + tag;
  std::string out = "**Run " + std::to_string(r.id) + "**" + (r.name.empty() ? "" : " " + r.name) +
                    ": arm " + toString(r.arm) + " of experiment " +
                    std::to_string(r.experiment_id) +
                    (r.experiment_name.empty() ? "" : " (" + r.experiment_name + ")") + "\n\n";
  out += "- status: " + toString(r.status) +
         (d.summary.message.empty() ? "" : " (" + d.summary.message + ")") + "\n";
  out += "- m×K: " + batchSizesText(r) + "\n";
  out += "- data: " + r.dataset +
         (d.dataset_description.empty() ? "" : " — " + d.dataset_description) + "\n";
  out += "- model: " + r.model + (d.model_description.empty() ? "" : " — " + d.model_description) +
         "\n";
  out += "- device: " + d.device + "\n";
  out += "- started: " + r.started_at + (r.ended_at.empty() ? "" : ", ended: " + r.ended_at) + "\n";
  if (!tags.empty()) out += "- tags: " + tags + "\n";
  if (!d.note.empty()) out += "- note: " + d.note + "\n";
  return out;
}

tensorflow::Event event(double wall_time, int64_t step) {
  tensorflow::Event e;
  e.set_wall_time(wall_time);
  e.set_step(step);
  return e;
}

/// A string for TensorBoard's text plugin: a rank-0 string tensor (Markdown).
void addText(tensorflow::Summary& summary, const std::string& tag, const std::string& text) {
  tensorflow::Summary::Value* v = summary.add_value();
  v->set_tag(tag);
  tensorflow::SummaryMetadata* meta = v->mutable_metadata();
  meta->mutable_plugin_data()->set_plugin_name("text");
  meta->set_data_class(tensorflow::DATA_CLASS_TENSOR);
  tensorflow::TensorProto* tensor = v->mutable_tensor();
  tensor->set_dtype(tensorflow::DT_STRING);
  tensor->mutable_tensor_shape();
  tensor->add_string_val(text);
}

/// One event record per point of the timeline: its scalars, and its events as text under
/// `events_tag`.
void writePoints(EventFile& file, const std::map<int64_t, Point>& line, double start,
                 const std::string& events_tag) {
  for (const auto& [x, p] : line) {
    tensorflow::Event e = event(start + p.wall_ms / 1000.0, x);
    tensorflow::Summary* summary = e.mutable_summary();
    for (const auto& [tag, value] : p.scalars) {
      tensorflow::Summary::Value* v = summary->add_value();
      v->set_tag(tag);
      v->set_simple_value(static_cast<float>(value));
    }
    if (!p.events.empty()) addText(*summary, events_tag, p.events);
    for (const auto& [tag, text] : p.texts) addText(*summary, tag, text);
    file.write(e.SerializeAsString());
  }
}

void writeRun(const ExportedRun& run, const fs::path& folder, const std::string& shown) {
  const RunDetail& d = run.detail;
  const double start = unixSecondsOf(d.row.started_at);
  const fs::path log = folder / tensorBoardRunName(d.row);
  makeFolder(log, shown);
  char name[64];
  std::snprintf(name, sizeof name, "events.out.tfevents.%lld.accumlab",
                static_cast<long long>(start));
  EventFile file(log / name, shown);

  tensorflow::Event version = event(start, 0);
  version.set_file_version("brain.Event:2");
  file.write(version.SerializeAsString());
  tensorflow::Event about = event(start, 0);
  addText(*about.mutable_summary(), "run", runText(d));
  addText(*about.mutable_summary(), "config", markdownTable(d.config_json));
  file.write(about.SerializeAsString());

  const Timelines t = timelines(run);
  writePoints(file, t.by_step, start, "events");
  writePoints(file, t.by_samples, start, "by_samples/events");
  if (d.summary_json != "{}" && !t.by_step.empty()) {
    const auto& [last_step, last] = *t.by_step.rbegin();
    tensorflow::Event summary = event(start + last.wall_ms / 1000.0, last_step);
    addText(*summary.mutable_summary(), "summary", markdownTable(exportedSummaryJson(run)));
    file.write(summary.SerializeAsString());
  }
  file.commit();
}

}  // namespace

void writeTensorBoard(const std::vector<ExportedRun>& runs, const std::string& folder) {
  makeFolder(folder, folder);
  for (const ExportedRun& run : runs) writeRun(run, folder, folder);
}

#else  // ACCUMLAB_WITH_TENSORBOARD

void writeTensorBoard(const std::vector<ExportedRun>&, const std::string& folder) {
  throw InputError("cannot write TensorBoard logs to " + folder +
                   ": this build has no TensorBoard export (it was configured with "
                   "-DACCUMLAB_TENSORBOARD=OFF); export as CSV or JSON instead");
}

#endif  // ACCUMLAB_WITH_TENSORBOARD

}  // namespace accumlab::store
