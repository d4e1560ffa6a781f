// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <deque>
#include <string>

#include "accumlab/input_error.h"

namespace accumlab {

/// Scalars and short lists in a torch::serialize archive, for the trainer's checkpoint.
/// Readers throw InputError naming `path` when a key is missing or of another type.
inline void putInt(torch::serialize::OutputArchive& a, const std::string& key, int64_t v) {
  a.write(key, c10::IValue(v));
}
inline void putDouble(torch::serialize::OutputArchive& a, const std::string& key, double v) {
  a.write(key, c10::IValue(v));
}
inline void putText(torch::serialize::OutputArchive& a, const std::string& key,
                    const std::string& v) {
  a.write(key, c10::IValue(v));
}
inline void putValues(torch::serialize::OutputArchive& a, const std::string& key,
                      const std::deque<double>& values) {
  torch::Tensor t = torch::empty({static_cast<int64_t>(values.size())}, torch::kFloat64);
  double* out = t.data_ptr<double>();
  for (size_t i = 0; i < values.size(); ++i) out[i] = values[i];
  a.write(key, t);
}

inline c10::IValue getValue(torch::serialize::InputArchive& a, const std::string& key,
                            const std::string& path) {
  c10::IValue v;
  if (!a.try_read(key, v)) {
    throw InputError("checkpoint " + path + " lacks '" + key +
                     "': it was written by another version of AccumLab or is damaged");
  }
  return v;
}
inline int64_t getInt(torch::serialize::InputArchive& a, const std::string& key,
                      const std::string& path) {
  const c10::IValue v = getValue(a, key, path);
  if (!v.isInt()) throw InputError("checkpoint " + path + " has a wrong '" + key + "'");
  return v.toInt();
}
inline double getDouble(torch::serialize::InputArchive& a, const std::string& key,
                        const std::string& path) {
  const c10::IValue v = getValue(a, key, path);
  if (!v.isDouble()) throw InputError("checkpoint " + path + " has a wrong '" + key + "'");
  return v.toDouble();
}
inline std::string getText(torch::serialize::InputArchive& a, const std::string& key,
                           const std::string& path) {
  const c10::IValue v = getValue(a, key, path);
  if (!v.isString()) throw InputError("checkpoint " + path + " has a wrong '" + key + "'");
  return v.toStringRef();
}
inline std::deque<double> getValues(torch::serialize::InputArchive& a, const std::string& key,
                                    const std::string& path) {
  torch::Tensor t;
  if (!a.try_read(key, t) || t.scalar_type() != torch::kFloat64 || t.dim() != 1) {
    throw InputError("checkpoint " + path + " lacks the list '" + key + "'");
  }
  std::deque<double> values;
  const double* in = t.data_ptr<double>();
  for (int64_t i = 0; i < t.size(0); ++i) values.push_back(in[i]);
  return values;
}

}  // namespace accumlab
