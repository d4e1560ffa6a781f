// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>

#include "accumlab/records.h"
#include "models/model.h"

namespace accumlab {

/// The largest model whose weights a run keeps in the store: SQLite holds at most 1e9 bytes
/// in one value, and a store is not the place for much more.
inline constexpr int64_t kMaxKeptWeightBytes = int64_t{512} << 20;

/// Whether an arm that ended with `status` keeps its final weights: a finished or stopped arm
/// is a trained model; a diverged or failed one is not.
inline bool keepsWeights(ArmStatus status) {
  return status == ArmStatus::kFinished || status == ArmStatus::kStopped;
}

/// `model`'s final weights as arm `arm`'s ArmWeights: the TorchScript archive of
/// Model::saveScripted. Throws InputError when the model cannot be written as TorchScript or
/// the archive exceeds kMaxKeptWeightBytes.
ArmWeights keptWeights(ArmKind arm, Model& model);

}  // namespace accumlab
