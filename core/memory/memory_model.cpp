// SPDX-License-Identifier: GPL-3.0-or-later
#include "accumlab/memory_model.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

#include "accumlab/format_bytes.h"
#include "accumlab/input_error.h"

namespace accumlab {

bool MemoryModel::valid() const {
  return std::isfinite(fixed_bytes) && std::isfinite(per_sample_bytes) &&
         std::isfinite(accum_extra_bytes);
}

BudgetFit fitMemoryBudget(const MemoryModel& model, int64_t budget_bytes, int64_t effective_batch) {
  if (effective_batch < 1) {
    throw InputError("the effective batch must be at least 1, got " +
                     std::to_string(effective_batch));
  }
  if (!model.valid()) {
    throw InputError(
        "a memory budget needs the tensor memory measured, and this device does not "
        "measure it");
  }
  const double budget = static_cast<double>(budget_bytes);
  int64_t m = effective_batch;
  if (model.predict(effective_batch) > budget) {
    // Accumulation is needed: K > 1 at every m < B.
    const int64_t one_k = effective_batch > 1 ? 2 : 1;
    if (model.predict(1, one_k) > budget) {
      throw InputError(
          "a memory budget of " + formatBytes(budget) + " is below the " +
          formatBytes(model.predict(1, one_k)) + " of tensors that one sample needs (m = 1: " +
          "weights, gradients and optimizer state alone take " + formatBytes(model.fixed_bytes) +
          (one_k > 1 ? ", and accumulating adds " + formatBytes(model.accum_extra_bytes) : "") +
          "); raise the budget or choose a smaller model");
    }
    m = 1;
    if (model.per_sample_bytes > 0) {
      m = static_cast<int64_t>(std::floor((budget - model.fixed_bytes - model.accum_extra_bytes) /
                                          model.per_sample_bytes));
      m = std::clamp<int64_t>(m, 1, effective_batch - 1);
      while (m > 1 && model.predict(m, 2) > budget) --m;  // rounding of the division
    }
  }
  BudgetFit fit;
  fit.accum = (effective_batch + m - 1) / m;
  fit.micro_batch = (effective_batch + fit.accum - 1) / fit.accum;
  fit.predicted_bytes = model.predict(fit.micro_batch, fit.accum);
  const int64_t covered = fit.micro_batch * fit.accum;
  // A K = 1 update whose peak is that of its noise-measuring halves says so.
  const bool halves =
      fit.accum == 1 &&
      fit.predicted_bytes >
          model.fixed_bytes + model.per_sample_bytes * static_cast<double>(fit.micro_batch);
  fit.reason =
      "memory budget " + formatBytes(budget) + ": m = " + std::to_string(fit.micro_batch) +
      ", K = " + std::to_string(fit.accum) + " (predicted peak " +
      formatBytes(fit.predicted_bytes) +
      " of tensors = " + (halves ? "in the windows split in halves to measure noise, " : "") +
      formatBytes(model.fixed_bytes) + " fixed + " + formatBytes(model.per_sample_bytes) +
      " per sample" +
      (fit.accum > 1 || halves ? " + " + formatBytes(model.accum_extra_bytes) + " to accumulate"
                               : "") +
      "; " +
      (fit.accum == 1 ? "the whole batch fits at once"
                      : "m = " + std::to_string(m) + " is the largest that fits") +
      (covered == effective_batch
           ? ")"
           : "; m·K = " + std::to_string(covered) + " covers the effective batch " +
                 std::to_string(effective_batch) + " in whole micro-batches)");
  return fit;
}

int64_t parseByteSize(const std::string& text) {
  size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  std::string unit = text.substr(used);
  unit.erase(
      std::remove_if(unit.begin(), unit.end(), [](unsigned char c) { return std::isspace(c); }),
      unit.end());
  std::transform(unit.begin(), unit.end(), unit.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  double scale = 0;
  if (unit.empty() || unit == "b")
    scale = 1;
  else if (unit == "kib" || unit == "k")
    scale = 1024.0;
  else if (unit == "mib" || unit == "m")
    scale = 1024.0 * 1024;
  else if (unit == "gib" || unit == "g")
    scale = 1024.0 * 1024 * 1024;
  else if (unit == "kb")
    scale = 1e3;
  else if (unit == "mb")
    scale = 1e6;
  else if (unit == "gb")
    scale = 1e9;
  if (used == 0 || scale == 0 || !std::isfinite(value) || value <= 0) {
    throw InputError("memory size '" + text +
                     "' is not a size; write it like 200MiB, 1.5GiB, "
                     "500MB or a number of bytes");
  }
  return static_cast<int64_t>(std::llround(value * scale));
}

}  // namespace accumlab
