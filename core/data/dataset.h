#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <vector>

#include "accumlab/experiment_config.h"

namespace accumlab {

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

  int64_t trainSize() const { return train_x.size(0); }
  int64_t valSize() const { return val_x.defined() ? val_x.size(0) : 0; }
  /// Inputs of the given train rows, converted to `dtype` on `device`.
  torch::Tensor trainInputs(const torch::Tensor& rows, torch::Dtype dtype,
                            const torch::Device& device) const;
  /// Targets of the given train rows (int64 labels or `dtype` values) on `device`.
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

/// Throws InputError unless the class labels `y` (int64) hold at least two distinct classes;
/// `source` names the file (or column) they came from.
void requireTwoClasses(const torch::Tensor& y, const std::string& source);

}  // namespace accumlab
