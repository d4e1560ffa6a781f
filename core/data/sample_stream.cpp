// SPDX-License-Identifier: GPL-3.0-or-later
#include "data/sample_stream.h"

#include <random>
#include <utility>

namespace accumlab {

SampleStream::SampleStream(int64_t size, uint64_t seed) : size_(size), seed_(seed) {
  order_.resize(static_cast<size_t>(size_));
  shuffleEpoch();
}

void SampleStream::shuffleEpoch() {
  // Our own Fisher–Yates over mt19937_64: std::shuffle's algorithm differs between
  // standard libraries, and the order must be reproducible from the seed alone.
  std::mt19937_64 rng(seed_ + 0x2545F4914F6CDD1DULL * static_cast<uint64_t>(epoch_ + 1));
  for (int64_t i = 0; i < size_; ++i) order_[static_cast<size_t>(i)] = i;
  for (int64_t i = size_ - 1; i > 0; --i) {
    const auto j = static_cast<int64_t>(rng() % static_cast<uint64_t>(i + 1));
    std::swap(order_[static_cast<size_t>(i)], order_[static_cast<size_t>(j)]);
  }
  position_ = 0;
}

void SampleStream::seek(int64_t consumed) {
  epoch_ = size_ > 0 ? consumed / size_ : 0;
  shuffleEpoch();
  position_ = size_ > 0 ? consumed % size_ : 0;
  consumed_ = consumed;
}

int64_t SampleStream::remainingInEpoch() const { return size_ - position_; }

torch::Tensor SampleStream::take(int64_t count) {
  torch::Tensor rows = torch::empty({count}, torch::kLong);
  int64_t* out = rows.data_ptr<int64_t>();
  int64_t filled = 0;
  while (filled < count) {
    if (position_ == size_) {
      ++epoch_;
      shuffleEpoch();
    }
    const int64_t n = std::min(count - filled, size_ - position_);
    std::copy(order_.begin() + position_, order_.begin() + position_ + n, out + filled);
    position_ += n;
    filled += n;
  }
  consumed_ += count;
  // Start the next epoch eagerly so that remainingInEpoch() never reports 0.
  if (position_ == size_) {
    ++epoch_;
    shuffleEpoch();
  }
  return rows;
}

}  // namespace accumlab
