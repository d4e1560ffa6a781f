// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "accumlab/experiment_config.h"
#include "accumlab/records.h"
#include "data/dataset.h"
#include "train/arm_run.h"

namespace accumlab {

/// The fixed-weight variance probes of a run (docs/measurements.md): when the next is due,
/// running one with its seeds, and every probe so far for the pooled estimate. Used by the
/// thread that trains the probed arm.
class ProbeSchedule {
 public:
  /// A probe every `period` samples of the probed arm at least (0: none).
  void start(int64_t period) {
    period_ = period;
    next_ = period;
  }
  /// Whether one is due with the probed arm at `samples`.
  bool dueAt(int64_t samples) const { return period_ > 0 && samples >= next_; }
  /// Probes `arm`'s weights with the experiment's m and K (K·workers: a data-parallel window),
  /// keeps the record and moves the next probe on; `wall_ms` is the run's clock.
  ProbeRecord probe(ArmRun& arm, const Dataset& data, const ExperimentConfig& config, int64_t m,
                    int64_t k, torch::Device device, torch::Dtype dtype, double wall_ms);

  const std::optional<ProbeRecord>& last() const { return last_; }
  int64_t count() const { return count_; }
  const std::vector<ProbeRecord>& all() const { return all_; }

  /// Its part of a run checkpoint (RunCheckpoint); load throws InputError naming `path`.
  void save(torch::serialize::OutputArchive& archive) const;
  void load(torch::serialize::InputArchive& archive, const std::string& path);

 private:
  int64_t period_ = 0;
  int64_t next_ = 0;  ///< samples seen by the probed arm at which the next is due
  std::optional<ProbeRecord> last_;
  int64_t count_ = 0;
  std::vector<ProbeRecord> all_;
};

}  // namespace accumlab
