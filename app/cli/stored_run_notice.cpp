// SPDX-License-Identifier: GPL-3.0-or-later
#include "stored_run_notice.h"

namespace accumlab::cli {

std::string describeStored(const StoreSink& store) {
  std::string runs;
  for (const StoredRun& r : store.runs()) {
    runs += (runs.empty() ? "" : ", ") + std::to_string(r.run_id) + " " + toString(r.arm);
  }
  return "experiment " + std::to_string(store.experimentId()) + " (runs " + runs + ") in " +
         store.path();
}

nlohmann::json storedJson(const StoreSink& store) {
  nlohmann::json ids = nlohmann::json::object();
  for (const StoredRun& r : store.runs()) ids[toString(r.arm)] = r.run_id;
  return {{"db", store.path()}, {"experiment_id", store.experimentId()}, {"run_ids", ids}};
}

void StoredRunNotice::onRunStarted(const RunInfo&) {
  std::fprintf(out_, "Storing as %s\n", describeStored(store_).c_str());
  std::fflush(out_);
}

}  // namespace accumlab::cli
