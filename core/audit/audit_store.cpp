// SPDX-License-Identifier: GPL-3.0-or-later
#include "accumlab/audit_store.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "accumlab/records.h"
#include "accumlab/run_store.h"

namespace accumlab {
namespace {

OptimizerKind auditOptimizerOf(const std::string& name) {
  if (name == "Adam") return OptimizerKind::kAdam;
  if (name == "AdamW") return OptimizerKind::kAdamW;
  return OptimizerKind::kSgd;
}

int64_t auditRows(const std::vector<int64_t>& v) {
  int64_t s = 0;
  for (int64_t x : v) s += x;
  return s;
}

}  // namespace

StoredAudit storeAudit(const std::string& db, const AuditFile& f, const AuditVerdict& v) {
  RunInfo info;
  ExperimentConfig& c = info.config;
  c.name = "audit of " + f.path;
  c.data = "audit:" + f.path;
  c.model = f.model;
  c.arms = {ArmKind::kBigBatch, ArmKind::kAccum};
  c.dtype = f.dtype == "float64" ? DType::kFloat64 : DType::kFloat32;
  c.optimizer.kind = auditOptimizerOf(f.optimizer);
  c.grad_check_every = f.every;
  int64_t most_micro = 0;
  for (const AuditWindow& w : f.windows) {
    most_micro = std::max<int64_t>(most_micro, static_cast<int64_t>(w.rows.size()));
  }
  if (!f.windows.empty() && !f.windows.front().rows.empty()) {
    c.micro_batch = f.windows.front().rows.front();
    c.optimizer.lr = std::isfinite(f.windows.front().lr) ? f.windows.front().lr : 0;
  }
  c.accum = std::max<int64_t>(most_micro, 1);
  info.device = "torch " + f.torch + " (the audited loop's own)";
  info.dataset = "the audited loop's data (" + f.path + ")";
  info.model = f.model + " (" + std::to_string(f.parameters) + " parameters), loss " + f.loss +
               ", optimizer " + f.optimizer;
  info.parameters = f.parameters;

  StoreSink sink(db);
  sink.onRunStarted(info);
  std::vector<StepRecord> reference, loop;
  int64_t seen = 0;
  for (const AuditWindow& w : f.windows) {
    StepRecord r;
    r.step = w.window;
    r.window_samples = auditRows(w.rows);
    seen += r.window_samples;
    r.samples_seen = seen;
    r.micro_batch = w.rows.empty() ? 0 : w.rows.front();
    r.accum = static_cast<int64_t>(w.rows.size());
    r.loss = w.loss;
    r.lr = w.lr;
    r.arm = ArmKind::kBigBatch;
    r.grad_norm = r.grad_norm_applied = w.ref_norm;
    sink.onStep(r);
    reference.push_back(r);
    r.arm = ArmKind::kAccum;
    r.grad_norm = r.grad_norm_applied = w.loop_norm;
    r.grad_equiv = w.rel_diff;
    sink.onStep(r);
    loop.push_back(r);
  }
  RunSummary summary;
  summary.info = info;
  for (const auto* steps : {&reference, &loop}) {
    ArmSummary s;
    s.arm = steps->empty() ? ArmKind::kBigBatch : steps->front().arm;
    s.status = ArmStatus::kFinished;
    s.micro_batch = c.micro_batch;
    s.accum = c.accum;
    s.steps = static_cast<int64_t>(steps->size());
    s.samples_seen = seen;
    double last = 0;
    int64_t n = 0;
    for (size_t i = steps->size() > 50 ? steps->size() - 50 : 0; i < steps->size(); ++i) {
      if (std::isfinite((*steps)[i].loss)) last += (*steps)[i].loss, ++n;
    }
    s.final_train_loss = n > 0 ? last / static_cast<double>(n) : kNaN;
    s.batch_dependent = !f.batch_dependent.empty();
    s.stochastic = f.stochastic;
    if (steps == &loop) {
      setGradChecks(s, tallyGradChecks(loop));
      s.message = v.sentence;
    }
    summary.arms.push_back(s);
    sink.onArmFinished(s);
  }
  sink.onRunFinished(summary);
  sink.finish();
  StoredAudit stored;
  stored.experiment_id = sink.experimentId();
  RunStore runs(db);
  for (const StoredRun& r : sink.runs()) {
    const bool mine = r.arm == ArmKind::kAccum;
    runs.rename(r.run_id, mine ? kAuditLoopName : kAuditReferenceName);
    if (mine) runs.setNote(r.run_id, v.sentence + (v.note.empty() ? "" : " " + v.note));
    runs.addTags(r.run_id, {"audit", "verdict:" + v.verdict});
    (mine ? stored.loop_run : stored.reference_run) = r.run_id;
  }
  return stored;
}

}  // namespace accumlab
