// SPDX-License-Identifier: GPL-3.0-or-later
// The runs of a store as CSV, JSON or TensorBoard logs, written whole or not at all.
#include "accumlab/run_exporter.h"

#include "accumlab/input_error.h"
#include "accumlab/output_file.h"
#include "store/export_formats.h"
#include "store/summary_json.h"
#include "store/tensorboard_writer.h"

namespace accumlab {

namespace {

/// Everything the exports write about the runs; throws InputError when one does not exist.
std::vector<store::ExportedRun> exportedRuns(RunStore& store, const std::vector<int64_t>& run_ids) {
  std::vector<store::ExportedRun> runs;
  for (int64_t id : run_ids) runs.push_back({store.run(id), store.series(id)});
  return runs;
}

}  // namespace

std::string runRowJson(const RunRow& row) { return store::rowToJson(row).dump(); }

std::string RunExporter::text(const std::vector<int64_t>& run_ids, ExportFormat format) {
  if (format == ExportFormat::kTensorBoard) {
    throw InputError(
        "TensorBoard logs are a folder of files, not text; give a folder to "
        "write them to");
  }
  const auto runs = exportedRuns(store_, run_ids);
  return format == ExportFormat::kCsv ? store::exportCsv(runs) : store::exportJson(runs);
}

void RunExporter::write(const std::vector<int64_t>& run_ids, ExportFormat format,
                        const std::string& out_path) {
  if (RunStore::wouldOverwrite(store_.path(), out_path)) {
    throw InputError("cannot export to " + out_path +
                     ": it is the run database being read; "
                     "choose another file for the export");
  }
  if (format == ExportFormat::kTensorBoard) {
    store::writeTensorBoard(exportedRuns(store_, run_ids), out_path);
    return;
  }
  writeFileWhole(out_path, text(run_ids, format), "the export file");
}

}  // namespace accumlab
