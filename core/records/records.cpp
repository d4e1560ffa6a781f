// SPDX-License-Identifier: GPL-3.0-or-later
#include "accumlab/records.h"

#include <cmath>
#include <cstdio>

#include "accumlab/input_error.h"

namespace accumlab {

std::string armSizesText(const ArmSummary& a, const std::string& x) {
  std::string text = std::to_string(a.micro_batch) + x + std::to_string(a.accum);
  if (a.memory_piece <= 0 || a.memory_piece >= a.micro_batch) return text;
  const int64_t per_batch = (a.micro_batch + a.memory_piece - 1) / a.memory_piece;
  const bool even = a.micro_batch % a.memory_piece == 0;
  return text + " (as " + (even ? "" : "≤") + std::to_string(a.memory_piece) + x +
         std::to_string(per_batch * a.accum) + ")";
}

namespace {

std::string printed(const char* format, double a, double b = 0, double c = 0) {
  char buf[160];
  std::snprintf(buf, sizeof buf, format, a, b, c);
  return buf;
}

}  // namespace

std::string partingCause(const ExperimentConfig& config) {
  const std::string& spec = config.model;
  const std::string name = spec.substr(0, spec.find(':'));
  const bool adam = config.optimizer.kind != OptimizerKind::kSgd;
  // Adam divides each gradient element by the root of its running square: a difference in an
  // element that is nearly zero becomes a step of full size.
  const std::string amplifier =
      adam ? std::string(config.optimizer.kind == OptimizerKind::kAdam ? "Adam" : "AdamW") +
                 ", which divides each gradient by its running scale, amplified it"
           : "training amplified it";
  if (name == "mlp" || name == "cnn" || name == "cnn_bn") {
    return std::string(
               "a rounding difference most likely tipped an activation across a kink (a "
               "ReLU's 0") +
           (name == "mlp" ? "" : " or a tie in a max-pool") + ") in one arm only, and " + amplifier;
  }
  if (name == "charlm") {
    return "a rounding difference grew through the GRU's recurrence (smooth: tanh and sigmoid, "
           "no kink), and " +
           amplifier;
  }
  if (name == "charlm-transformer") {
    return "a rounding difference (the model is smooth: GELU, softmax and layer norm, no kink) "
           "grew, and " +
           amplifier;
  }
  if (name == "logreg") {
    return "a rounding difference (a linear model, no kink) grew, and " + amplifier;
  }
  return "a rounding difference grew, through a kink (a ReLU's 0) in one arm only if the model "
         "has one, and " +
         amplifier;
}

namespace {

/// |g − G| / |G| as a share of the true gradient, which a student reads without the formula:
/// 1.79 → "gradient 179% off the true one".
std::string gradientOff(double rel_diff) {
  const double percent = rel_diff * 100;
  const char* format = percent >= 100 ? "gradient %.0f%% off the true one"
                       : percent >= 1 ? "gradient %.3g%% off the true one"
                                      : "gradient %.2g%% off the true one";
  return printed(format, percent);
}

}  // namespace

std::string pitfallDeviation(const ArmSummary& s, DType dtype, bool brief) {
  if (!isPitfall(s.arm) || s.grad_equivalence_checks <= 0) return "";
  const double level = roundingLevel(dtype);
  const double mean = s.grad_equivalence_mean_full;
  const double largest = s.grad_equivalence_rel_diff;
  const auto full =
      static_cast<double>(s.grad_equivalence_checks - s.grad_equivalence_uneven_checks);
  const auto uneven = static_cast<double>(s.grad_equivalence_uneven_checks);
  const bool exact_on_full = !(mean > level);  // NaN (no full window checked) counts as exact
  switch (s.arm) {
    case ArmKind::kPitfallSum:
      // Σ g_i = K·G on a full window: |K·G − G| / |G| = K − 1, so the update is (1 + d)·G.
      if (std::isfinite(mean)) {
        return brief ? printed("updates ×%.2f the true one", 1 + mean)
                     : printed("×%.2f the big-batch gradient on full windows (theory: ×%.0f, K)",
                               1 + mean, static_cast<double>(s.accum));
      }
      break;
    case ArmKind::kPitfallSchedulePerMicro:
      if (!(largest > level)) {
        return brief ? "exact (the LR is wrong)"
                     : printed(
                           "its gradient is exact (%.1e): the mistake is in its LR, which "
                           "the check cannot see",
                           largest);
      }
      break;
    case ArmKind::kPitfallMeanOfMeans:
      if (exact_on_full && s.grad_equivalence_uneven_checks == 0) {
        return brief ? "exact"
                     : printed(
                           "exact (%.1e): every checked window was full; it is wrong only "
                           "at uneven windows",
                           largest);
      }
      if (exact_on_full) {
        return brief ? "exact, " + gradientOff(s.grad_equivalence_largest_uneven) +
                           " at uneven windows"
                     : printed("exact on full windows (%.1e), %.2f off at %.0f uneven window",
                               std::isfinite(mean) ? mean : 0.0, s.grad_equivalence_largest_uneven,
                               uneven) +
                           (uneven == 1 ? "" : "s") + " (an epoch's or the run's end)";
      }
      break;
    case ArmKind::kPitfallNoZero:
      if (s.grad_equivalence_checks > 1 && s.grad_equivalence_last > s.grad_equivalence_first) {
        return brief ? gradientOff(s.grad_equivalence_last) + ", growing"
                     : printed(
                           "%.3g off the big-batch gradient at the first check, %.3g at the "
                           "last: every update adds all earlier gradients again",
                           s.grad_equivalence_first, s.grad_equivalence_last);
      }
      break;
    default:
      break;
  }
  if (brief) return gradientOff(std::isfinite(mean) ? mean : largest);
  if (std::isfinite(mean)) {
    return printed(
        "typically %.2f off the big-batch gradient (|g − G| / |G|, the mean of %.0f "
        "checks of full windows; the largest %.2f)",
        mean, full, largest);
  }
  return printed("%.2f off the big-batch gradient (|g − G| / |G|, the largest check)", largest);
}

}  // namespace accumlab
