// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "store_command.h"

namespace accumlab::cli {

// The subcommands that read or change the run store, each a StoreCommand with its options;
// each class's members are in the file named after it (compare_command.cpp, …). `report`
// runs in accumlab-engine, the others in accumlab-cli itself.

/// `accumlab-cli audit FILE.jsonl`: judges an audit of a user's own PyTorch loop
/// (python/accumlab, docs/audit.md), prints its windows and verdict, and with --db stores it
/// as an experiment: the reference (the exact big batch) and the run named "your loop".
class AuditCommand : public StoreCommand {
 public:
  explicit AuditCommand(CLI::App& parent);
  int execute() override;

 private:
  std::string file_;
  bool json_ = false;
};

/// `accumlab-cli compare`: puts runs' summaries side by side, with ratios to the first run and a
/// config diff.
class CompareCommand : public StoreCommand {
 public:
  explicit CompareCommand(CLI::App& parent);
  int execute() override;

 private:
  std::vector<std::string> ids_;
  bool json_ = false;
};

/// `accumlab-cli delete`: deletes runs and all their rows; needs --yes.
class DeleteCommand : public StoreCommand {
 public:
  explicit DeleteCommand(CLI::App& parent);
  int execute() override;

 private:
  std::vector<std::string> ids_;
  bool yes_ = false;
};

/// `accumlab-cli export`: writes runs' metrics, evals, config and summary to a CSV or JSON file,
/// or as TensorBoard logs into a folder.
class ExportCommand : public StoreCommand {
 public:
  explicit ExportCommand(CLI::App& parent);
  int execute() override;

 private:
  std::vector<std::string> ids_;
  std::string format_;
  std::string out_;
};

/// `accumlab-cli export-model RUN [--arm ARM] --out FILE.pt`: writes a run's trained model (the
/// final weights the run kept) as a TorchScript file for plain PyTorch (ModelExporter).
class ExportModelCommand : public StoreCommand {
 public:
  explicit ExportModelCommand(CLI::App& parent);
  int execute() override;

 private:
  std::string id_;
  std::string arm_;
  std::string out_;
};

/// `accumlab-cli list`: lists stored runs (or, with --sweeps, sweeps), newest first, as a
/// table or JSON.
class ListCommand : public StoreCommand {
 public:
  explicit ListCommand(CLI::App& parent);
  int execute() override;

 private:
  int listSweeps(RunStore& store) const;

  std::string tag_, dataset_, status_;
  int64_t limit_ = 0;
  bool json_ = false;
  bool sweeps_ = false;
};

/// `accumlab-cli merge SRC.sqlite… --db DEST`: copies the runs of other stores (made on other
/// machines, or by the tasks of a cluster job) into one, with StoreMerger.
class MergeCommand : public StoreCommand {
 public:
  explicit MergeCommand(CLI::App& parent);
  int execute() override;

 private:
  std::vector<std::string> sources_;
  bool json_ = false;
};

/// `accumlab-cli note`: sets a run's note (an empty text clears it).
class NoteCommand : public StoreCommand {
 public:
  explicit NoteCommand(CLI::App& parent);
  int execute() override;

 private:
  std::string id_;
  std::string text_;
};

/// `accumlab-cli show`: prints one run's config, summary, events, tags and note.
class ShowCommand : public StoreCommand {
 public:
  explicit ShowCommand(CLI::App& parent);
  int execute() override;

 private:
  std::string id_;
  bool json_ = false;
};

/// `accumlab-cli tag`: adds tags to a run (or removes them with --remove).
class TagCommand : public StoreCommand {
 public:
  explicit TagCommand(CLI::App& parent);
  int execute() override;

 private:
  std::string id_;
  std::vector<std::string> tags_;
  bool remove_ = false;
};

/// The `report` subcommand: `report ID… --out FILE.html [--db PATH]` renders the desktop
/// app's one-file HTML report off-screen. Each id stands for its whole experiment (all its
/// arms); ids of several experiments are overlaid, as in the app's compare mode.
/// `report --sweep ID --out FILE.html` writes a sweep's report: its points, fits and plots.
/// `report --lesson ID --out FILE.html` writes a lesson attempt's: its verdict and its runs.
/// A runs report starts with the lesson results of the attempts that trained those runs.
class ReportCommand : public StoreCommand {
 public:
  explicit ReportCommand(CLI::App& parent);
  int execute() override;

 private:
  std::vector<std::string> ids_;
  std::string out_;
  int64_t sweep_ = 0;
  int64_t lesson_ = 0;
};

}  // namespace accumlab::cli
