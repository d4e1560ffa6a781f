// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <torch/torch.h>

#include <memory>
#include <optional>
#include <string>

#include "accumlab/records.h"
#include "stats/step_recorder.h"
#include "train/arm_stepper.h"

namespace accumlab {

class Outbox;

/// One arm of a Trainer's run: its stepper, its recorder and where it stands. Trained by the
/// run's thread, or in a round by one thread at a time (RoundRunner).
struct ArmRun {
  ArmRun(std::unique_ptr<ArmStepper> s, const ExperimentConfig& config)
      : stepper(std::move(s)), recorder(config.noise_ema, config.variance_window) {}

  /// The arm's summary as the sink hears it at its end; `device` gives the peak memory.
  ArmSummary summary(torch::Device device) const;
  /// Writes or reads everything the arm is (stepper, recorder, status, evaluations) under
  /// `prefix` in a run checkpoint (RunCheckpoint); load throws InputError naming `path`.
  void save(torch::serialize::OutputArchive& archive, const std::string& prefix) const;
  void load(torch::serialize::InputArchive& archive, const std::string& prefix,
            const std::string& path);

  std::unique_ptr<ArmStepper> stepper;
  StepRecorder recorder;
  ArmStatus status = ArmStatus::kRunning;
  std::string message;
  int64_t diverged_at_step = -1;
  int64_t next_eval = 0;  ///< samples seen at which the next evaluation is due
  std::optional<EvalRecord> last_eval;
  double equivalence_rel_diff = kNaN;
  int64_t parted_at_step = -1;   ///< accum and big-batch: see ArmSummary
  ArmCeiling ceiling;            ///< measured as the run starts (measureCeilings)
  bool awaiting_change = false;  ///< a scheduled m/K change has not reached this arm yet
  /// While the arm trains in a round: where what it tells the sink waits (else null).
  Outbox* outbox = nullptr;
};

}  // namespace accumlab
