// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "accumlab/records.h"

namespace accumlab {

/// One window of an audit file: one update of the audited loop (docs/audit.md).
struct AuditWindow {
  int64_t window = 0;              ///< the update, 1-based
  bool audited = false;            ///< compared with the big batch (every=N skips some)
  std::string irregular;           ///< first, short, changed, after-change; empty: regular
  std::vector<int64_t> rows;       ///< samples (rows) of each micro-batch
  std::vector<double> counts;      ///< what each micro-batch's loss averaged over
  std::string unit;                ///< samples, tokens or elements
  std::vector<double> lrs;         ///< the learning rate at each micro-batch's loss
  double lr = kNaN;                ///< the learning rate at the optimizer step
  double loss = kNaN;              ///< the window's loss as one batch
  double ref_norm = kNaN;          ///< |R|, the exact big batch's gradient
  double loop_norm = kNaN;         ///< |U|, the loop's gradient before clipping
  double rel_diff = kNaN;          ///< |U − R| / |R|
  double scale = kNaN;             ///< <U, R> / |R|²
  double cosine = kNaN;            ///< <U, R> / (|U| |R|)
  std::vector<std::string> match;  ///< exact and the recipes within rounding
  std::vector<std::pair<std::string, double>> recipes;  ///< |U − P_r| / |R|, NaN: none
};

/// An audit file read and checked (the header's fields that are shown, and every window).
struct AuditFile {
  std::string path;
  std::string torch;
  std::string dtype;
  std::string model;
  int64_t parameters = 0;
  std::string loss;
  std::string optimizer;
  int64_t every = 1;
  std::vector<std::string> batch_dependent;  ///< modules that normalise over their batch
  bool stochastic = false;                   ///< the model has dropout
  std::vector<AuditWindow> windows;
};

/// The format name and version an audit file's first line must carry.
inline constexpr char kAuditFormat[] = "accumlab-audit";
inline constexpr int kAuditVersion = 1;

/// Reads the audit file `path` (python/accumlab writes it); throws InputError with one
/// sentence naming the file and what is wrong: unreadable, not JSON lines, another format or
/// version, truncated (no end line), or a window without its fields.
AuditFile readAuditFile(const std::string& path);

}  // namespace accumlab
