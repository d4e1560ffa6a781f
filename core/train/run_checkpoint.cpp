// SPDX-License-Identifier: GPL-3.0-or-later
#include "train/run_checkpoint.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "accumlab/input_error.h"
#include "accumlab/metrics_sink.h"
#include "train/state_archive.h"

namespace accumlab {

namespace {

constexpr char kCheckpointMark[] = "accumlab.trainer_checkpoint";

/// The folder of a checkpoint file ("" when `path` names none).
std::string checkpointFolder(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

}  // namespace

void RunCheckpoint::every(int64_t samples, std::function<std::string()> path_of) {
  every_ = samples;
  next_ = samples;
  path_of_ = std::move(path_of);
}

bool RunCheckpoint::dueAt(int64_t at) {
  if (every_ <= 0 || at < next_) return false;
  while (next_ <= at) next_ += every_;
  return true;
}

void RunCheckpoint::save(const RunParts& parts, double elapsed_ms, MetricsSink& sink) {
  sink.flush();
  if (path_.empty()) path_ = path_of_ ? path_of_() : "";
  if (path_.empty()) return;
  torch::serialize::OutputArchive a;
  putText(a, kCheckpointMark, "1");
  putText(a, "config", configToJson(parts.config));
  putInt(a, "every", every_);
  putInt(a, "next_checkpoint", next_);
  putDouble(a, "elapsed_ms", elapsed_ms);
  parts.schedule.save(a);
  parts.probes.save(a);
  const auto& arms = parts.schedule.arms();
  putInt(a, "arms", static_cast<int64_t>(arms.size()));
  for (size_t i = 0; i < arms.size(); ++i) arms[i]->save(a, "arm" + std::to_string(i));
  // Written aside and renamed: a kill while saving leaves the previous checkpoint whole.
  const std::string aside = path_ + ".partial";
  // The folder beside the store exists only while it holds a checkpoint (discard()).
  const std::string folder = checkpointFolder(path_);
  if (!folder.empty()) ::mkdir(folder.c_str(), 0755);  // a failure shows as the save's below
  try {
    a.save_to(aside);
  } catch (const std::exception& e) {
    throw InputError("cannot write the checkpoint " + path_ + " (" +
                     std::string(e.what()).substr(0, std::string(e.what()).find('\n')) + ")");
  }
  if (std::rename(aside.c_str(), path_.c_str()) != 0) {
    throw InputError("cannot write the checkpoint " + path_ + " (" + std::strerror(errno) + ")");
  }
}

double RunCheckpoint::load(RunParts& parts) {
  const std::string& path = resume_path_;
  torch::serialize::InputArchive a;
  try {
    a.load_from(path);
  } catch (const std::exception&) {
    throw InputError("checkpoint " + path + " cannot be read: it is missing or damaged");
  }
  if (getText(a, kCheckpointMark, path) != "1") {
    throw InputError(path + " is not a checkpoint of this version of AccumLab");
  }
  if (getText(a, "config", path) != configToJson(parts.config)) {
    throw InputError("checkpoint " + path + " belongs to another experiment (its config differs)");
  }
  const auto& arms = parts.schedule.arms();
  if (getInt(a, "arms", path) != static_cast<int64_t>(arms.size())) {
    throw InputError("checkpoint " + path + " holds other arms than this experiment");
  }
  if (every_ == 0) {
    every_ = getInt(a, "every", path);
    path_ = path;
  }
  next_ = getInt(a, "next_checkpoint", path);
  const double elapsed_ms = getDouble(a, "elapsed_ms", path);
  parts.schedule.load(a, path);
  parts.probes.load(a, path);
  for (size_t i = 0; i < arms.size(); ++i) arms[i]->load(a, "arm" + std::to_string(i), path);
  return elapsed_ms;
}

void RunCheckpoint::discard() {
  if (path_.empty()) return;
  std::remove(path_.c_str());
  // The folder goes with its last checkpoint: rmdir leaves one that still holds another
  // experiment's (or anything else) alone.
  const std::string folder = checkpointFolder(path_);
  if (!folder.empty()) ::rmdir(folder.c_str());
}

}  // namespace accumlab
