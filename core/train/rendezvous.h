// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <chrono>
#include <exception>
#include <string>
#include <torch/csrc/distributed/c10d/Store.hpp>
#include <vector>

#include "accumlab/trainer.h"

namespace accumlab {

/// How the ranks of a data-parallel run meet before their process group connects, on a c10d
/// store: a FileStore in a private folder (ranks on this machine), rank 0's TCPStore, or the
/// launcher's own (torchrun's agent store). Across machines rank 0 proves first that it knows
/// the token, and every other rank checks that proof and then proves in turn; every rank says
/// hello with its world size, LibTorch version and fingerprint, and rank 0 compares them and
/// answers. The store stays for the roll call after a lost rank. Used on the training thread
/// only.
class Rendezvous {
 public:
  /// Opens the store as rank `options.rank` of `world` and meets the others; `fingerprint` is
  /// the experiment's config JSON (a difference is named by its key). Throws InputError with
  /// one sentence.
  Rendezvous(const WorkerGroupOptions& options, int world, const std::string& fingerprint);
  Rendezvous(const Rendezvous&) = delete;
  Rendezvous& operator=(const Rendezvous&) = delete;

  /// The store the ranks met on, for their process group.
  const c10::intrusive_ptr<c10d::Store>& store() const { return store_; }
  /// The ranks are on this machine (they met in a rendezvous folder).
  bool local() const { return local_; }
  /// The TCPStore's port; 0 in a rendezvous folder.
  int port() const { return port_; }
  /// Where they met: "127.0.0.1:29500", or the rendezvous folder.
  const std::string& where() const { return where_; }

  /// After a failed all-reduce: the ranks of `world` that do not say on the store within a few
  /// seconds that they are still there (rank 0 when the store went away with it).
  std::vector<int> rollCall(int world);

 private:
  c10::intrusive_ptr<c10d::Store> store_;
  int rank_;
  double timeout_s_;
  bool local_;
  int port_ = 0;
  std::string where_;
};

/// The first line of an exception's message (c10d's and Gloo's go on with a stack).
std::string firstLine(const std::exception& e);
/// Seconds for a sentence: "2.5 s".
std::string secondsText(double s);
/// Seconds as c10d's timeouts take them.
std::chrono::milliseconds toMillis(double s);
/// Ranks for a sentence: "1, 2 and 3".
std::string rankList(const std::vector<int>& ranks);

}  // namespace accumlab
