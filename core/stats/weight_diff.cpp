// SPDX-License-Identifier: GPL-3.0-or-later
#include "stats/weight_diff.h"

#include <algorithm>
#include <limits>

namespace accumlab {

double maxRelativeWeightDifference(const std::vector<torch::Tensor>& a,
                                   const std::vector<torch::Tensor>& b) {
  torch::NoGradGuard no_grad;
  double worst = 0.0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    const double scale = b[i].abs().max().item<double>();
    const double diff = (a[i] - b[i]).abs().max().item<double>();
    const double rel =
        scale > 0 ? diff / scale : (diff > 0 ? std::numeric_limits<double>::infinity() : 0.0);
    worst = std::max(worst, rel);
  }
  return worst;
}

}  // namespace accumlab
