// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <deque>
#include <string>
#include <type_traits>
#include <vector>

#include "accumlab/input_error.h"
#include "records/record_field.h"

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

/// A visit (`visit(key, member)`) that puts each member under "<prefix><key>": a real as a
/// double, text as text, a list of reals as a tensor, and an integer, a flag or an enum as an
/// integer. ArchiveReader reads them back: one list of keys serves both ways.
struct ArchiveWriter {
  torch::serialize::OutputArchive& archive;
  const std::string& prefix;

  template <typename T>
  void operator()(const char* key, const T& v) const {
    if constexpr (std::is_same_v<T, double>) {
      putDouble(archive, prefix + key, v);
    } else if constexpr (std::is_same_v<T, std::string>) {
      putText(archive, prefix + key, v);
    } else if constexpr (std::is_same_v<T, std::deque<double>>) {
      putValues(archive, prefix + key, v);
    } else {
      putInt(archive, prefix + key, static_cast<int64_t>(v));
    }
  }
};

/// A visit that reads each member that ArchiveWriter put; throws InputError naming `path`
/// when one is missing or of another type.
struct ArchiveReader {
  torch::serialize::InputArchive& archive;
  const std::string& prefix;
  const std::string& path;

  template <typename T>
  void operator()(const char* key, T& v) const {
    if constexpr (std::is_same_v<T, double>) {
      v = getDouble(archive, prefix + key, path);
    } else if constexpr (std::is_same_v<T, std::string>) {
      v = getText(archive, prefix + key, path);
    } else if constexpr (std::is_same_v<T, std::deque<double>>) {
      v = getValues(archive, prefix + key, path);
    } else if constexpr (std::is_same_v<T, bool>) {
      v = getInt(archive, prefix + key, path) != 0;
    } else {
      v = static_cast<T>(getInt(archive, prefix + key, path));
    }
  }
};

/// Puts every field of `r` under "<p>.<name>": integers and flags as integers, reals as
/// doubles.
template <typename R>
void putFields(torch::serialize::OutputArchive& a, const std::string& p, const R& r,
               const std::vector<RecordField<R>>& fields) {
  for (const auto& f : fields) {
    if (f.real) {
      putDouble(a, p + "." + f.name, r.*f.real);
    } else {
      putInt(a, p + "." + f.name, f.flag ? (r.*f.flag ? 1 : 0) : r.*f.integer);
    }
  }
}

/// Reads the fields putFields() wrote. A field its table added after schema version
/// `required_up_to` may be missing (a checkpoint written before the field was) and keeps its
/// default; any other missing field throws InputError naming `path`.
template <typename R>
void getFields(torch::serialize::InputArchive& a, const std::string& p, R& r,
               const std::vector<RecordField<R>>& fields, const std::string& path,
               int required_up_to) {
  for (const auto& f : fields) {
    const std::string key = p + "." + f.name;
    if (f.since > required_up_to) {
      c10::IValue probe;
      if (!a.try_read(key, probe)) continue;
    }
    if (f.real) {
      r.*f.real = getDouble(a, key, path);
    } else if (f.flag) {
      r.*f.flag = getInt(a, key, path) != 0;
    } else {
      r.*f.integer = getInt(a, key, path);
    }
  }
}

}  // namespace accumlab
