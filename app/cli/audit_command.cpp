// SPDX-License-Identifier: GPL-3.0-or-later
#include "audit_command.h"

#include <algorithm>
#include <cmath>
#include <iostream>

#include "accumlab/input_error.h"
#include "audit_file.h"
#include "audit_verdict.h"
#include "text_table.h"

namespace accumlab::cli {
namespace {

/// The names the two stored runs carry: `list`, `show` and `compare` print them.
constexpr char kReferenceName[] = "reference (exact big batch)";
constexpr char kYourLoopName[] = "your loop";

std::string countsText(const AuditWindow& w) {
  std::string out;
  for (double c : w.counts) out += (out.empty() ? "" : "+") + cell(c, "%.0f");
  return out.empty() ? "-" : out + " " + w.unit;
}

std::string matchText(const AuditWindow& w) {
  if (!w.audited) return "(not compared)";
  if (w.match.empty()) return "no known recipe";
  std::string out;
  for (const auto& m : w.match) out += (out.empty() ? "" : ", ") + m;
  return out;
}

OptimizerKind optimizerOf(const std::string& name) {
  if (name == "Adam") return OptimizerKind::kAdam;
  if (name == "AdamW") return OptimizerKind::kAdamW;
  return OptimizerKind::kSgd;
}

int64_t sum(const std::vector<int64_t>& v) {
  int64_t s = 0;
  for (int64_t x : v) s += x;
  return s;
}

/// The reference and the loop as two arms of one experiment, a step per window.
nlohmann::json store(const std::string& db, const AuditFile& f, const AuditVerdict& v) {
  RunInfo info;
  ExperimentConfig& c = info.config;
  c.name = "audit of " + f.path;
  c.data = "audit:" + f.path;
  c.model = f.model;
  c.arms = {ArmKind::kBigBatch, ArmKind::kAccum};
  c.dtype = f.dtype == "float64" ? DType::kFloat64 : DType::kFloat32;
  c.optimizer.kind = optimizerOf(f.optimizer);
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
    r.window_samples = sum(w.rows);
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
  nlohmann::json ids = nlohmann::json::object();
  RunStore runs(db);
  for (const StoredRun& r : sink.runs()) {
    const bool mine = r.arm == ArmKind::kAccum;
    runs.rename(r.run_id, mine ? kYourLoopName : kReferenceName);
    if (mine) runs.setNote(r.run_id, v.sentence + (v.note.empty() ? "" : " " + v.note));
    runs.addTags(r.run_id, {"audit", "verdict:" + v.verdict});
    ids[mine ? kYourLoopName : "reference"] = r.run_id;
  }
  return {{"db", db}, {"experiment_id", sink.experimentId()}, {"run_ids", ids}};
}

}  // namespace

AuditCommand::AuditCommand(CLI::App& parent)
    : StoreCommand(parent, "audit",
                   "Judge an audit of your own PyTorch loop (python/accumlab writes it): the "
                   "verdict table, and with --db store it beside its reference") {
  app_->add_option("file", file_, "The audit file (JSON lines) that audit.watch wrote")->required();
  app_->add_flag("--json", json_, "Print one JSON object with the verdict");
}

int AuditCommand::execute() {
  // Read and judge the whole file before the store is touched: a bad file changes nothing.
  if (!db_.empty() && RunStore::wouldOverwrite(db_, file_)) {
    throw InputError(file_ + " is the run store (or a journal of it), not an audit file");
  }
  const AuditFile f = readAuditFile(file_);
  const AuditVerdict v = judgeAudit(f);
  nlohmann::json stored;
  if (!db_.empty()) stored = store(db_, f, v);
  if (json_) {
    nlohmann::json j = {{"file", f.path},
                        {"verdict", v.verdict},
                        {"accumulation", v.accumulation},
                        {"sentence", v.sentence},
                        {"note", v.note},
                        {"windows", v.windows},
                        {"audited", v.audited},
                        {"largest_rel_diff", jsonNumber(v.largest_rel_diff)},
                        {"scale", jsonNumber(v.scale)},
                        {"cosine", jsonNumber(v.cosine)},
                        {"rel_diff", jsonNumber(v.rel_diff)},
                        {"batch_dependent", f.batch_dependent},
                        {"model", f.model},
                        {"loss", f.loss},
                        {"optimizer", f.optimizer},
                        {"dtype", f.dtype}};
    if (!stored.is_null()) j["stored"] = stored;
    std::cout << j.dump(2) << std::endl;
    return 0;
  }
  std::cout << "Audit of " << f.path << ": " << f.model << " (" << f.parameters
            << " parameters), loss " << f.loss << ", " << f.optimizer << ", " << f.dtype << ", "
            << v.windows << " updates, " << v.audited << " compared\n\n";
  TextTable table({"update", "window", "per micro-batch", "vs big batch", "scale", "matches"});
  for (const AuditWindow& w : f.windows) {
    if (!w.audited && f.every > 1) continue;  // every=N: only the compared windows
    table.add({std::to_string(w.window), w.irregular.empty() ? "regular" : w.irregular,
               countsText(w), cell(w.rel_diff, "%.2e"), cell(w.scale, "%.4f"), matchText(w)});
  }
  std::cout << table.str() << "\nverdict: " << v.verdict << "\n" << v.sentence << "\n";
  if (!v.note.empty()) std::cout << v.note << "\n";
  if (!stored.is_null()) {
    std::cout << "Stored as experiment " << stored["experiment_id"].get<int64_t>() << " in " << db_
              << " (runs " << stored["run_ids"]["reference"].get<int64_t>() << " reference, "
              << stored["run_ids"][kYourLoopName].get<int64_t>() << " your loop)\n";
  }
  return 0;
}

}  // namespace accumlab::cli
