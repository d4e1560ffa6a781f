// SPDX-License-Identifier: GPL-3.0-or-later
// A run's trained model out of the store: the engine kept each arm's final weights as a
// TorchScript archive (core/train/kept_weights.cpp), so taking it away is copying bytes.
#include "accumlab/model_exporter.h"

#include "accumlab/input_error.h"
#include "accumlab/output_file.h"

namespace accumlab {

namespace {

/// Why run `row` has no weights to export, as the end of a sentence.
std::string whyNoWeights(RunStore& store, const RunRow& row) {
  switch (row.status) {
    case ArmStatus::kRunning:
      return "it is still running; its model is kept when it finishes";
    case ArmStatus::kInterrupted:
      return "it was interrupted; resume it (accumlab-cli run --resume " + std::to_string(row.id) +
             ") and its model is kept when it ends";
    case ArmStatus::kDiverged:
      return "it diverged, and a diverged arm's weights are not a model";
    case ArmStatus::kFailed:
      return "it failed, and a failed arm's weights are not kept";
    default:
      break;
  }
  if (!store.run(row.id).config.keep_weights) {
    return "it ran with --keep-weights off";
  }
  return "it was stored by an AccumLab that kept no weights, or imported without them";
}

}  // namespace

RunRow ModelExporter::pick(int64_t run_id, const std::string& arm) {
  if (!store_.hasRun(run_id)) {
    throw InputError("no run " + std::to_string(run_id) + " in " + store_.path() +
                     "; `accumlab-cli list` shows the runs it holds");
  }
  const RunDetail detail = store_.run(run_id);
  if (arm.empty()) return detail.row;
  const ArmKind wanted = parseArmKind(arm);
  RunFilter filter;
  filter.experiment_id = detail.row.experiment_id;
  std::string arms;
  for (const RunRow& r : store_.listRuns(filter)) {
    if (r.arm == wanted) return r;
    arms = toString(r.arm) + (arms.empty() ? "" : ", ") + arms;
  }
  throw InputError("run " + std::to_string(run_id) + "'s experiment has no arm " + arm +
                   " (its arms: " + arms + ")");
}

int64_t ModelExporter::write(int64_t run_id, const std::string& out_path) {
  const RunRow row = pick(run_id);
  const std::optional<ArmWeights> weights = store_.weights(run_id);
  if (!weights) {
    throw InputError("run " + std::to_string(run_id) + " (" + toString(row.arm) +
                     ") has no trained model to export: " + whyNoWeights(store_, row));
  }
  if (out_path.empty()) throw InputError("no file named to write the model to");
  if (RunStore::wouldOverwrite(store_.path(), out_path)) {
    throw InputError("cannot write the model to " + out_path +
                     ": it is the run database being read; choose another file");
  }
  writeFileWhole(out_path, weights->data, "the model to");
  return static_cast<int64_t>(weights->data.size());
}

}  // namespace accumlab
