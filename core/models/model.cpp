// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/model.h"

#include "accumlab/input_error.h"

namespace accumlab {

void Model::copyStateFrom(Model& other) {
  torch::NoGradGuard no_grad;
  auto dst = parameters();
  auto src = other.parameters();
  auto dst_b = buffers();
  auto src_b = other.buffers();
  if (dst.size() != src.size() || dst_b.size() != src_b.size()) {
    throw std::logic_error("copyStateFrom: replicas of '" + spec() + "' differ in layout");
  }
  for (size_t i = 0; i < dst.size(); ++i) dst[i].copy_(src[i]);
  for (size_t i = 0; i < dst_b.size(); ++i) dst_b[i].copy_(src_b[i]);
}

int64_t Model::parameterCount() {
  int64_t n = 0;
  for (const auto& p : parameters()) n += p.numel();
  return n;
}

std::string shapeText(c10::IntArrayRef shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "x" : "") + std::to_string(shape[i]);
  return s + "]";
}

}  // namespace accumlab
