// SPDX-License-Identifier: GPL-3.0-or-later
#include "data/dataset.h"

#include <cstring>
#include <sstream>
#include <stdexcept>
#include <type_traits>

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

namespace {

// The rows of `source` at `rows`, converted to To and multiplied by `scale` as convertInputs
// does (ATen multiplies a To tensor by a scalar in To): a micro-batch's gather without a
// dispatched op (at m = 8 those ops cost more than the copy; docs/performance.md, "Rows and
// ReLU without dispatched ops").
template <typename From, typename To>
torch::Tensor gatherInto(const torch::Tensor& source, const torch::Tensor& rows, double scale,
                         torch::ScalarType dtype) {
  std::vector<int64_t> shape = source.sizes().vec();
  shape[0] = rows.numel();
  torch::Tensor out = torch::empty(shape, source.options().dtype(dtype));
  const int64_t n = source.size(0), count = rows.numel();
  const int64_t width = n > 0 ? source.numel() / n : 0;  // elements of one row
  const int64_t* index = rows.data_ptr<int64_t>();
  const From* from = source.data_ptr<From>();
  To* to = out.data_ptr<To>();
  const To factor = static_cast<To>(scale);
  for (int64_t r = 0; r < count; ++r) {
    const int64_t row = index[r];
    if (row < 0 || row >= n) {
      throw std::out_of_range("row " + std::to_string(row) + " of a dataset of " +
                              std::to_string(n));
    }
    const From* in = from + row * width;
    To* dst = to + r * width;
    if constexpr (std::is_same_v<From, To>) {
      std::memcpy(dst, in, static_cast<size_t>(width) * sizeof(To));
    } else {
      for (int64_t i = 0; i < width; ++i) dst[i] = static_cast<To>(in[i]);
    }
    if (scale != 1.0) {
      for (int64_t i = 0; i < width; ++i) dst[i] = dst[i] * factor;
    }
  }
  return out;
}

// The gather without dispatched ops, for the CPU's common forms (uint8 or float inputs to
// float32 or float64, int64 labels); an undefined tensor for any other form, which
// index_select and convertInputs then take.
torch::Tensor gatherRows(const torch::Tensor& source, const torch::Tensor& rows, double scale,
                         torch::ScalarType dtype, const torch::Device& device) {
  if (!device.is_cpu() || !source.is_cpu() || !source.is_contiguous() || source.dim() < 1 ||
      !rows.is_cpu() || rows.scalar_type() != torch::kLong || rows.dim() != 1 ||
      !rows.is_contiguous()) {
    return {};
  }
  const torch::ScalarType from = source.scalar_type();
  if (dtype == torch::kFloat && from == torch::kByte) {
    return gatherInto<uint8_t, float>(source, rows, scale, dtype);
  }
  if (dtype == torch::kFloat && from == torch::kFloat) {
    return gatherInto<float, float>(source, rows, scale, dtype);
  }
  if (dtype == torch::kDouble && from == torch::kByte) {
    return gatherInto<uint8_t, double>(source, rows, scale, dtype);
  }
  if (dtype == torch::kDouble && from == torch::kFloat) {
    return gatherInto<float, double>(source, rows, scale, dtype);
  }
  if (dtype == torch::kDouble && from == torch::kDouble) {
    return gatherInto<double, double>(source, rows, scale, dtype);
  }
  if (dtype == torch::kLong && from == torch::kLong && scale == 1.0) {
    return gatherInto<int64_t, int64_t>(source, rows, 1.0, dtype);
  }
  return {};  // e.g. float64 data trained in float32: ATen's rounding, not written here
}

// Text rows cut to the longest of them: a batch pads to its own longest sequence.
torch::Tensor textRows(const torch::Tensor& x, const torch::Tensor& len) {
  const int64_t longest = len.numel() > 0 ? len.max().item<int64_t>() : 1;
  return x.slice(1, 0, longest);
}

torch::Tensor textInputs(const torch::Tensor& rows, const torch::Device& device) {
  return rows.slice(1, 0, rows.size(1) - 1).to(torch::kLong).to(device);
}

// The byte after each input position; positions at or past a row's kTextEnd are ignored.
torch::Tensor textTargets(const torch::Tensor& rows, const torch::Tensor& len,
                          const torch::Device& device) {
  torch::Tensor y = rows.slice(1, 1, rows.size(1)).to(torch::kLong);
  const torch::Tensor position = torch::arange(y.size(1), torch::kLong).unsqueeze(0);
  y.masked_fill_(position.ge((len - 1).unsqueeze(1)), kIgnoredTarget);
  return y.to(device);
}

/// Each text row's loss terms: one sequence, or its target tokens (one per stored byte
/// after kTextStart); float64.
torch::Tensor textRowWeights(const torch::Tensor& len, TokenLoss mode) {
  if (mode == TokenLoss::kSequences) return torch::ones(len.sizes(), torch::kFloat64);
  return (len - 1).to(torch::kFloat64);
}

double textWeight(const torch::Tensor& len, TokenLoss mode) {
  return textRowWeights(len, mode).sum().item<double>();
}

}  // namespace

double Dataset::trainWeight(const torch::Tensor& rows) const {
  if (!isText()) return static_cast<double>(rows.numel());
  return textWeight(train_len.index_select(0, rows), token_loss);
}

torch::Tensor Dataset::trainRowWeights(const torch::Tensor& rows) const {
  if (!isText()) return torch::ones({rows.numel()}, torch::kFloat64);
  return textRowWeights(train_len.index_select(0, rows), token_loss);
}

double Dataset::trainTokens(const torch::Tensor& rows) const {
  return textWeight(train_len.index_select(0, rows), TokenLoss::kTokens);
}

double Dataset::valWeight(int64_t begin, int64_t end) const {
  if (!isText()) return static_cast<double>(end - begin);
  return textWeight(val_len.slice(0, begin, end), token_loss);
}

torch::Tensor Dataset::trainInputs(const torch::Tensor& rows, torch::Dtype dtype,
                                   const torch::Device& device) const {
  if (isText()) {
    return textInputs(textRows(train_x.index_select(0, rows), train_len.index_select(0, rows)),
                      device);
  }
  if (torch::Tensor x = gatherRows(train_x, rows, scale, dtype, device); x.defined()) return x;
  return convertInputs(train_x.index_select(0, rows), scale, dtype, device);
}

torch::Tensor Dataset::trainTargets(const torch::Tensor& rows, torch::Dtype dtype,
                                    const torch::Device& device) const {
  if (isText()) {
    const torch::Tensor len = train_len.index_select(0, rows);
    return textTargets(textRows(train_x.index_select(0, rows), len), len, device);
  }
  const torch::ScalarType as = task == Task::kRegression ? dtype : train_y.scalar_type();
  if (torch::Tensor y = gatherRows(train_y, rows, 1.0, as, device); y.defined()) return y;
  torch::Tensor y = train_y.index_select(0, rows).to(device);
  return task == Task::kRegression ? y.to(dtype) : y;
}

torch::Tensor Dataset::valInputs(int64_t begin, int64_t end, torch::Dtype dtype,
                                 const torch::Device& device) const {
  if (isText()) {
    return textInputs(textRows(val_x.slice(0, begin, end), val_len.slice(0, begin, end)), device);
  }
  return convertInputs(val_x.slice(0, begin, end), scale, dtype, device);
}

torch::Tensor Dataset::valTargets(int64_t begin, int64_t end, torch::Dtype dtype,
                                  const torch::Device& device) const {
  if (isText()) {
    const torch::Tensor len = val_len.slice(0, begin, end);
    return textTargets(textRows(val_x.slice(0, begin, end), len), len, device);
  }
  torch::Tensor y = val_y.slice(0, begin, end).to(device);
  return task == Task::kRegression ? y.to(dtype) : y;
}

std::string Dataset::describe() const {
  std::ostringstream out;
  out << name << ": " << trainSize() << " train / " << valSize() << " validation, sample [";
  for (size_t i = 0; i < sample_shape.size(); ++i) out << (i ? "x" : "") << sample_shape[i];
  out << "], ";
  if (isText()) {
    out << "text of bytes, " << static_cast<int64_t>(textWeight(train_len, TokenLoss::kTokens))
        << " train tokens, sequences of " << train_len.min().item<int64_t>() - 1 << " to "
        << train_len.max().item<int64_t>() - 1 << " tokens";
  } else if (task == Task::kClassification) {
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

void splitTextTrainVal(Dataset& ds, const torch::Tensor& full_x, const torch::Tensor& full_len,
                       double val_fraction, uint64_t seed) {
  splitTrainVal(ds, full_x, full_len, val_fraction, seed);
  ds.train_len = ds.train_y;
  ds.val_len = ds.val_y;
  // Targets come from the rows themselves; the lengths stand in for labels nowhere.
  ds.train_y = torch::Tensor();
  ds.val_y = torch::Tensor();
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
