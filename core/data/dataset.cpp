#include "data/dataset.h"

#include <sstream>

#include "accumlab/input_error.h"

namespace accumlab {

torch::Tensor convertInputs(const torch::Tensor& raw, double scale, torch::Dtype dtype,
                            const torch::Device& device) {
  // Move the compact (uint8) form first: the transfer is 4× smaller than float.
  torch::Tensor x = raw.to(device, /*non_blocking=*/false);
  x = x.to(dtype);
  if (scale != 1.0) x.mul_(scale);
  return x;
}

torch::Tensor Dataset::trainInputs(const torch::Tensor& rows, torch::Dtype dtype,
                                   const torch::Device& device) const {
  return convertInputs(train_x.index_select(0, rows), scale, dtype, device);
}

torch::Tensor Dataset::trainTargets(const torch::Tensor& rows, torch::Dtype dtype,
                                    const torch::Device& device) const {
  torch::Tensor y = train_y.index_select(0, rows).to(device);
  return task == Task::kRegression ? y.to(dtype) : y;
}

torch::Tensor Dataset::valInputs(int64_t begin, int64_t end, torch::Dtype dtype,
                                 const torch::Device& device) const {
  return convertInputs(val_x.slice(0, begin, end), scale, dtype, device);
}

torch::Tensor Dataset::valTargets(int64_t begin, int64_t end, torch::Dtype dtype,
                                  const torch::Device& device) const {
  torch::Tensor y = val_y.slice(0, begin, end).to(device);
  return task == Task::kRegression ? y.to(dtype) : y;
}

std::string Dataset::describe() const {
  std::ostringstream out;
  out << name << ": " << trainSize() << " train / " << valSize() << " validation, sample [";
  for (size_t i = 0; i < sample_shape.size(); ++i) out << (i ? "x" : "") << sample_shape[i];
  out << "], ";
  if (task == Task::kClassification) {
    out << num_outputs << " classes";
    // The label mapping, so that a run's record says which index is which class.
    constexpr size_t kNamesShown = 12;
    for (size_t i = 0; i < class_names.size() && i <= kNamesShown; ++i) {
      out << (i ? ", " : " (") << (i < kNamesShown ? class_names[i] : "…");
    }
    if (!class_names.empty()) out << ")";
  } else {
    out << "regression, " << num_outputs << " target" << (num_outputs == 1 ? "" : "s");
  }
  return out.str();
}

void splitTrainVal(Dataset& ds, const torch::Tensor& full_x, const torch::Tensor& full_y,
                   double val_fraction, uint64_t seed) {
  const int64_t n = full_x.size(0);
  int64_t n_val = static_cast<int64_t>(static_cast<double>(n) * val_fraction + 0.5);
  if (val_fraction > 0 && n_val == 0) n_val = 1;
  if (n - n_val < 1) {
    throw InputError("dataset '" + ds.name + "' has " + std::to_string(n) +
                     " samples, too few to hold out a validation fraction of " +
                     std::to_string(val_fraction));
  }
  // A split stream independent of the training order stream.
  auto gen = at::make_generator<at::CPUGeneratorImpl>(seed ^ 0x5eedf00dULL);
  torch::Tensor perm = torch::randperm(n, gen, torch::TensorOptions().dtype(torch::kLong));
  torch::Tensor val_rows = perm.slice(0, 0, n_val);
  torch::Tensor train_rows = perm.slice(0, n_val, n);
  ds.train_x = full_x.index_select(0, train_rows).contiguous();
  ds.train_y = full_y.index_select(0, train_rows).contiguous();
  ds.val_x = full_x.index_select(0, val_rows).contiguous();
  ds.val_y = full_y.index_select(0, val_rows).contiguous();
}

void requireTwoClasses(const torch::Tensor& y, const std::string& source) {
  if (y.numel() == 0) throw InputError(source + " holds no labelled samples");
  const int64_t first = y[0].item<int64_t>();
  if (y.eq(first).all().item<bool>()) {
    throw InputError(source + " has only one class (label " + std::to_string(first) + " on all " +
                     std::to_string(y.numel()) +
                     " samples); classification needs at least two classes");
  }
}

}  // namespace accumlab
