// SPDX-License-Identifier: GPL-3.0-or-later
#include "sweep_point_command.h"

#include <csignal>
#include <cstdio>
#include <exception>
#include <vector>

#include "accumlab/executable_path.h"
#include "accumlab/input_error.h"
#include "accumlab/input_file.h"
#include "accumlab/metrics_sink.h"
#include "accumlab/output_file.h"
#include "accumlab/run_session.h"
#include "accumlab/run_store.h"
#include "accumlab/sweep_array.h"
#include "accumlab/sweep_job.h"
#include "engine_handoff.h"
#include "stop_on_signal.h"

namespace accumlab::cli {

namespace {

/// Trains `job`, filling in `outcome` as it goes (its run id as soon as the run is stored);
/// returns the exit code.
int trainJob(const SweepJob& job, SweepJobOutcome& outcome) {
  RunStore::refuseReadingStore(job.config, job.store_path);
  RunSessionOptions options;
  options.store_path = job.store_path;
  options.target = job.target;
  options.worker_program = executablePath();
  RunSession session(job.config, options);
  Trainer& trainer = session.trainer();
  // Ctrl-C or SIGTERM (SweepRunner asks once with SIGINT): stop at the next window boundary
  // and store the run as it is; a second signal quits at once.
  app::StopOnSignal on_signal("accumlab-cli", "stopping the point at its next window boundary",
                              [&trainer] { trainer.requestStop(); });
  NullSink silent;
  RunSummary summary;
  try {
    summary = session.run({&silent});
  } catch (const ReadStopped& e) {
    outcome.error = std::string(e.what()) + "; nothing was trained or stored";
    const int signo = on_signal.signalReceived();
    return 128 + (signo ? signo : SIGINT);
  }
  // The point trains one arm (accum, or the pitfall arm of `sweep --arm`).
  if (const StoreSink* store = session.store(); store && store->runs().size() == 1) {
    outcome.run_id = store->runs().front().run_id;
  }
  std::string problems;
  for (const std::string& problem : session.finish()) {  // throws when storing failed
    problems += (problems.empty() ? "" : "; ") + problem;
  }
  int code = 0;
  for (const ArmSummary& arm : summary.arms) {
    if (arm.status == ArmStatus::kFailed) {
      code = 1;
      if (outcome.error.empty()) outcome.error = arm.message;
    }
  }
  if (!problems.empty() && outcome.error.empty()) outcome.error = problems;
  if (const int signo = on_signal.signalReceived()) code = 128 + signo;
  return code;
}

}  // namespace

SweepPointCommand::SweepPointCommand(CLI::App& parent) {
  app_ = parent.add_subcommand("sweep-point", kSweepPointAbout);
  app_->add_option("job", job_path_,
                   "The point's job file (written by a sweep), or with --point a results "
                   "folder of `sweep --slurm`")
      ->required();
  auto* outcome = app_->add_option(
      "--outcome", outcome_path_,
      "Where to write what became of the point (JSON; see docs/sweeps.md); with --point, "
      "point-I.outcome.json in the folder");
  auto* point = app_->add_option("--point", point_,
                                 "Train point I of the results folder: a scheduler's task index "
                                 "such as $SLURM_ARRAY_TASK_ID (docs/clusters.md)")
                    ->check(CLI::NonNegativeNumber);
  outcome->excludes(point);
}

int SweepPointCommand::execute() {
  const bool from_folder = app_->get_option("--point")->count() > 0;
  const std::string job_path =
      from_folder ? sweepArrayFile(job_path_, point_, "job.json") : job_path_;
  const std::string outcome_path =
      from_folder ? sweepArrayFile(job_path_, point_, "outcome.json") : outcome_path_;
  if (outcome_path.empty()) {
    throw InputError("sweep-point " + job_path_ +
                     " needs --outcome FILE, or --point I for a results folder");
  }
  SweepJobOutcome outcome;
  int code = 0;
  try {
    const SweepJob job = readSweepJob(job_path);
    code = trainJob(job, outcome);
  } catch (const InputError& e) {
    outcome.bad_input = outcome.run_id == 0;
    outcome.error = e.what();
    code = 2;
  } catch (const std::exception& e) {
    outcome.error = std::string("internal error: ") + e.what();
    code = 1;
  }
  if (!outcome.error.empty()) std::fprintf(stderr, "accumlab-cli: %s\n", outcome.error.c_str());
  writeFileWhole(outcome_path, sweepJobOutcomeToJson(outcome));
  return code;
}

}  // namespace accumlab::cli
