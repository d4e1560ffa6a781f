// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "accumlab/metrics_sink.h"
#include "accumlab/run_store.h"

namespace accumlab::cli {

/// "experiment 3 (runs 7 no-accum, 8 accum, 9 big-batch) in PATH".
std::string describeStored(const StoreSink& store);
/// {"db": PATH, "experiment_id": 3, "run_ids": {"no-accum": 7, …}}: the `store` key of
/// `run --json`.
nlohmann::json storedJson(const StoreSink& store);

/// Prints where the run is stored as soon as its rows exist (on the training thread, right
/// after the StoreSink before it in a FanOutSink created them); hears nothing else.
class StoredRunNotice : public NullSink {
 public:
  StoredRunNotice(const StoreSink& store, std::FILE* out) : store_(store), out_(out) {}
  void onRunStarted(const RunInfo&) override;

 private:
  const StoreSink& store_;
  std::FILE* out_;
};

}  // namespace accumlab::cli
