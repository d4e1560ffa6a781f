// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "accumlab/names.h"
#include "accumlab/run_store.h"

namespace accumlab {

/// What an export writes: a CSV or JSON file, or a folder of TensorBoard logs (one log folder
/// per run, "<run id>-<arm>", see core/store/tensorboard_writer.h).
enum class ExportFormat { kCsv, kJson, kTensorBoard };
template <>
inline constexpr Names<ExportFormat> kNames<ExportFormat>{"export format", "csv json tensorboard"};
/// The formats' names: "csv", "json", "tensorboard".
/// Parses "csv", "json" or "tensorboard"; throws InputError naming the accepted values.
inline ExportFormat parseExportFormat(const std::string& s) {
  return kNames<ExportFormat>.parse(s);
}

/// A runs-list row as a JSON object's text (NaN is null): what `list --json` prints per run and
/// what each run of a JSON export begins with.
std::string runRowJson(const RunRow& row);

/// The runs of a store as files others read (docs/store.md, "Listing, comparing, exporting"): the
/// formats are in core/store/export_formats.h and core/store/tensorboard_writer.h.
class RunExporter {
 public:
  explicit RunExporter(RunStore& store) : store_(store) {}

  /// The runs as export text: CSV in long form (run_id, arm, step, samples_seen, wall_ms,
  /// one column per metric) or JSON (per run: ids, config, summary, metrics, evals, events,
  /// tags, note). Throws InputError when a run does not exist, or for kTensorBoard (a folder).
  std::string text(const std::vector<int64_t>& run_ids, ExportFormat format);
  /// Writes text() to `out_path`, or for kTensorBoard the runs' TensorBoard logs into the
  /// folder `out_path` (created when missing); throws InputError when the file or folder
  /// cannot be written or is the store itself. A failed write leaves no half file.
  void write(const std::vector<int64_t>& run_ids, ExportFormat format, const std::string& out_path);

 private:
  RunStore& store_;
};

}  // namespace accumlab
