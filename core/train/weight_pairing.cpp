// SPDX-License-Identifier: GPL-3.0-or-later
#include "train/weight_pairing.h"

#include <iterator>

#include "stats/weight_diff.h"

namespace accumlab {

void WeightPairing::arrive(Side side, int64_t step, int64_t samples,
                           const std::vector<torch::Tensor>& weights) {
  const Key key{step, samples};
  std::unique_lock<std::mutex> lock(mutex_);
  auto other = waiting_.find(key);
  if (other == waiting_.end() || other->second.first == side) {
    lock.unlock();
    // Copied outside the lock: the partner may arrive at another step meanwhile.
    std::vector<torch::Tensor> copy;
    copy.reserve(weights.size());
    torch::NoGradGuard no_grad;
    for (const torch::Tensor& w : weights) copy.push_back(w.detach().clone());
    lock.lock();
    other = waiting_.find(key);
    if (other == waiting_.end() || other->second.first == side) {
      waiting_[key] = {side, std::move(copy)};
      return;
    }
  }
  // The partner is there: compare now, outside the lock, and keep only the number.
  const std::vector<torch::Tensor> partner = std::move(other->second.second);
  waiting_.erase(other);
  lock.unlock();
  const double diff = side == Side::kAccum ? maxRelativeWeightDifference(weights, partner)
                                           : maxRelativeWeightDifference(partner, weights);
  lock.lock();
  compared_[key] = diff;
}

std::optional<double> WeightPairing::take(int64_t step, int64_t samples) {
  std::lock_guard<std::mutex> lock(mutex_);
  waiting_.erase(waiting_.begin(), waiting_.upper_bound({step, samples}));
  const auto it = compared_.find({step, samples});
  std::optional<double> diff;
  if (it != compared_.end()) diff = it->second;
  compared_.erase(compared_.begin(), compared_.upper_bound({step, samples}));
  return diff;
}

void WeightPairing::dropLeftBy(Side side) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = waiting_.begin(); it != waiting_.end();) {
    it = it->second.first == side ? waiting_.erase(it) : std::next(it);
  }
}

size_t WeightPairing::waiting() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return waiting_.size();
}

}  // namespace accumlab
