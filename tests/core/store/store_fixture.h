// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <gtest/gtest.h>

#include <SQLiteCpp/SQLiteCpp.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>

#include "accumlab/run_store.h"

namespace accumlab::testing {

/// A fresh folder for one test's database files, removed afterwards.
class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / "accumlab-store-test-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    dir_ = tmpl;
    db_ = dir_ + "/runs.sqlite";
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::permissions(db_, std::filesystem::perms::owner_all,
                                 std::filesystem::perm_options::add, ec);
    std::filesystem::remove_all(dir_, ec);
  }

  std::string dir_;
  std::string db_;
};

/// A small experiment config with the given arms.
inline RunInfo makeInfo(std::vector<ArmKind> arms = {ArmKind::kNoAccum, ArmKind::kAccum}) {
  RunInfo info;
  info.config.name = "unit";
  info.config.data = "spirals";
  info.config.model = "mlp";
  info.config.micro_batch = 4;
  info.config.accum = 2;
  info.config.arms = std::move(arms);
  info.device = "cpu (1 thread)";
  info.dataset = "spirals: 2000 samples";
  info.model = "mlp (100 parameters)";
  info.train_samples = 1800;
  info.val_samples = 200;
  info.budget_samples = 800;
  info.parameters = 100;
  return info;
}

/// A step whose every field is a distinct function of (arm, step), some NaN, so a
/// round trip that swaps, drops or rounds a column shows.
inline StepRecord makeStep(ArmKind arm, int64_t step) {
  const double a = static_cast<double>(arm) + 1, s = static_cast<double>(step);
  StepRecord r;
  r.arm = arm;
  r.step = step;
  r.samples_seen = step * 8;
  r.wall_ms = 0.25 * s + a / 3;
  r.micro_batch = 4;
  r.accum = 2;
  r.window_samples = 8;
  r.loss = 1.0 / (s + a) + 1e-13;
  r.mb_loss_mean = r.loss * 1.01;
  r.mb_loss_var = step % 2 ? kNaN : 0.1 / s;
  r.grad_norm = std::sqrt(s) * a;
  r.lr = 0.05;
  r.samples_per_s = 1e4 + s;
  r.memory_bytes = 1 << 20;
  r.g_small_sq = 2.5 * a;
  r.g_big_sq = 1.5 * a;
  r.b_small = 4;
  r.b_big = 8;
  r.trace_sigma_est = 8.0 / 3.0 * s;
  r.g_sq_est = -0.5 + s * 1e-3;
  r.trace_sigma_ema = 1e-300 * s;
  r.g_sq_ema = 3.14159 * s;
  r.b_simple = 123.456;
  r.noise_per_update = 1.0 / 7.0;
  r.loss_var_rolling = step < 3 ? kNaN : 0.01;
  r.loss_var_detrended = step < 3 ? kNaN : 0.008 * static_cast<double>(step);
  r.loss_var_count = std::min<int64_t>(step, 50);
  r.weight_rel_diff = arm == ArmKind::kAccum ? 1e-7 * s : kNaN;
  r.grad_norm_applied = std::min(r.grad_norm, 1.5);
  r.probe = step % 4 == 0;
  r.grad_equiv = arm == ArmKind::kAccum && step % 10 == 0 ? 3e-8 * s : kNaN;
  r.peak_tensor_bytes = step % 5 == 0 ? -1 : (int64_t{3} << 30) + step * 64 + int64_t(arm);
  return r;
}

/// Equal, or both NaN.
inline bool sameValue(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

/// Every byte of a file, for "left untouched" checks.
inline std::string fileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace accumlab::testing
