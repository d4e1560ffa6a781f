// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <string>

#include "accumlab/run_store.h"

namespace accumlab {

/// A stored run's trained model as a file that plain PyTorch loads with `torch.jit.load`
/// (docs/store.md#trained-models), for `accumlab-cli export-model` and the app's File → Save
/// trained model…. Reads the weights the run kept (RunStore::weights); needs no LibTorch.
///
/// Threads: uses the RunStore, so it follows that store's thread rule.
class ModelExporter {
 public:
  explicit ModelExporter(RunStore& store) : store_(store) {}

  /// The run whose model is meant: run `run_id` itself when `arm` is empty, else the run of
  /// arm `arm` (a name such as "accum") in the same experiment. Throws InputError when there
  /// is no such run, `arm` is no arm's name, or the experiment has no run of that arm (naming
  /// the arms it has).
  RunRow pick(int64_t run_id, const std::string& arm = "");
  /// Writes the model of run `run_id` to `out_path` (beside it first, then renamed: a failed
  /// write leaves no half file) and returns its size in bytes. Throws InputError when the run
  /// kept no weights (saying why, from its status and config), when `out_path` is the store
  /// or one of its journals, or cannot be written (naming the path and the reason).
  int64_t write(int64_t run_id, const std::string& out_path);

 private:
  RunStore& store_;
};

}  // namespace accumlab
