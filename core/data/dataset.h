// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <vector>

#include "accumlab/experiment_config.h"

namespace accumlab {

/// Text datasets (docs/sequences.md): bytes are tokens, and each row holds one sequence as
/// kTextStart, its bytes, kTextEnd, then kTextPad to the longest; the model reads the row
/// up to its last byte and predicts every byte after kTextStart, kTextEnd included.
inline constexpr int64_t kTextVocabulary = 256;
inline constexpr uint8_t kTextStart = 0x02;  ///< ASCII STX: never in text (firstNonTextByte)
inline constexpr uint8_t kTextEnd = 0x03;    ///< ASCII ETX
inline constexpr uint8_t kTextPad = 0x00;
/// The target of a padded position: cross-entropy leaves it out (PyTorch's ignore_index).
inline constexpr int64_t kIgnoredTarget = -100;

/// A loaded dataset, split into train and validation parts. Images stay uint8 in one
/// contiguous tensor and are converted per micro-batch (`scale` maps them to [0, 1]).
/// Owned by the training thread after loading; never mutated while training.
struct Dataset {
  std::string name;       ///< e.g. "fashion-mnist", "spirals"
  torch::Tensor train_x;  ///< [N, ...sample_shape], uint8 or float
  torch::Tensor train_y;  ///< int64 [N] (classification) or float [N, outputs]
  torch::Tensor val_x;
  torch::Tensor val_y;
  std::vector<int64_t> sample_shape;  ///< shape of one input sample
  Task task = Task::kClassification;
  int64_t num_outputs = 0;  ///< classes, or regression targets
  double scale = 1.0;       ///< multiplies inputs after conversion to float
  std::vector<std::string> class_names;
  /// Text: each row's stored length (kTextStart to kTextEnd), int64 [N]; undefined otherwise.
  torch::Tensor train_len;
  torch::Tensor val_len;
  /// Text: how token losses are averaged (weight below and lossSum in train/loss.h).
  TokenLoss token_loss = TokenLoss::kTokens;

  bool isText() const { return train_len.defined(); }
  /// The loss terms the given train rows bring to a mean: one per sample, or for text under
  /// --token-loss tokens their target tokens (one per stored byte after kTextStart).
  double trainWeight(const torch::Tensor& rows) const;
  /// The same per row: float64 [rows], adding up to trainWeight.
  torch::Tensor trainRowWeights(const torch::Tensor& rows) const;
  /// Text: the target tokens of the given train rows, whatever --token-loss says.
  double trainTokens(const torch::Tensor& rows) const;
  /// The loss terms of validation rows [begin, end).
  double valWeight(int64_t begin, int64_t end) const;

  int64_t trainSize() const { return train_x.size(0); }
  int64_t valSize() const { return val_x.defined() ? val_x.size(0) : 0; }
  /// Inputs of the given train rows, converted to `dtype` on `device`. Text: int64 byte
  /// tokens [rows, T], T one less than the longest row's stored length.
  torch::Tensor trainInputs(const torch::Tensor& rows, torch::Dtype dtype,
                            const torch::Device& device) const;
  /// Targets of the given train rows (int64 labels or `dtype` values) on `device`. Text: the
  /// next byte of each input position, kIgnoredTarget where the row is padding.
  torch::Tensor trainTargets(const torch::Tensor& rows, torch::Dtype dtype,
                             const torch::Device& device) const;
  /// A contiguous slice [begin, end) of the validation inputs / targets.
  torch::Tensor valInputs(int64_t begin, int64_t end, torch::Dtype dtype,
                          const torch::Device& device) const;
  torch::Tensor valTargets(int64_t begin, int64_t end, torch::Dtype dtype,
                           const torch::Device& device) const;
  /// One line for people: name, sizes, sample shape, classes and their names.
  std::string describe() const;
};

/// Converts raw inputs (uint8 or float) to `dtype` on `device`, applying `scale`.
torch::Tensor convertInputs(const torch::Tensor& raw, double scale, torch::Dtype dtype,
                            const torch::Device& device);

/// Splits `full_x`/`full_y` into train and validation parts by a seeded permutation.
void splitTrainVal(Dataset& ds, const torch::Tensor& full_x, const torch::Tensor& full_y,
                   double val_fraction, uint64_t seed);
/// The same split of a text dataset's rows `full_x` and their stored lengths `full_len`.
void splitTextTrainVal(Dataset& ds, const torch::Tensor& full_x, const torch::Tensor& full_len,
                       double val_fraction, uint64_t seed);

/// Throws InputError unless the class labels `y` (int64) hold at least two distinct classes;
/// `source` names the file (or column) they came from.
void requireTwoClasses(const torch::Tensor& y, const std::string& source);

}  // namespace accumlab
