// SPDX-License-Identifier: GPL-3.0-or-later
#include "train/worker_group.h"

#include <sys/stat.h>
#include <torch/version.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <torch/csrc/distributed/c10d/FileStore.hpp>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include "accumlab/input_error.h"
#include "accumlab/run_store.h"
#include "train/gloo_device.h"
#include "train/grad_window.h"
#include "train/listen_address.h"
#include "train/token_proof.h"

namespace accumlab {

namespace {

using Clock = std::chrono::steady_clock;

constexpr char kHello[] = "accumlab/hello/";
constexpr char kJoined[] = "accumlab/joined/";
constexpr char kVerdict[] = "accumlab/verdict";
constexpr char kVerdictRead[] = "accumlab/verdict_read";
constexpr char kAlive[] = "accumlab/alive/";
constexpr char kSalt[] = "accumlab/salt";      ///< rank 0's random salt for the token proofs
constexpr char kProof0[] = "accumlab/proof0";  ///< rank 0's proof that it knows the token
// What a rank says instead of its proof when rank 0's proof did not match its token.
constexpr char kRefused[] = "refused";
// Shortest token: the store, open to the network, holds HMACs that a short one could be
// guessed from offline.
constexpr size_t kMinTokenLength = 16;
// The FileStore's file in a rendezvous folder.
constexpr char kStoreFile[] = "/store";
// The advice every token sentence ends with.
constexpr char kTokenAdvice[] = "set the same --token-file or ACCUMLAB_TOKEN on every rank";
// Up to this many ranks, allReduceSum gathers every buffer and sums it locally: Gloo's ring
// all-reduce takes a round trip per step, and measured 1.7 ms for 118k floats between two
// processes on a 2-core machine, its all-gather 0.85 ms. Beyond, the ring moves less data.
constexpr int kGatherUpTo = 4;
// After a failed all-reduce, how long the ranks that are still there wait for each other.
constexpr double kRollCallS = 3.0;

std::vector<uint8_t> bytes(const std::string& s) { return {s.begin(), s.end()}; }
std::string text(const std::vector<uint8_t>& b) { return {b.begin(), b.end()}; }

std::string firstLine(const std::exception& e) {
  const std::string what = e.what();
  return what.substr(0, what.find('\n'));
}

std::string seconds(double s) {
  std::string t = std::to_string(s);
  t.erase(t.find_last_not_of('0') + 1);
  if (!t.empty() && t.back() == '.') t.pop_back();
  return t + " s";
}

std::chrono::milliseconds millis(double s) {
  return std::chrono::milliseconds(static_cast<int64_t>(s * 1000.0));
}

/// Splits "a\nb\nc" into its lines.
std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> out;
  size_t begin = 0;
  for (;;) {
    const size_t end = s.find('\n', begin);
    out.push_back(s.substr(begin, end - begin));
    if (end == std::string::npos) return out;
    begin = end + 1;
  }
}

/// Keys of `keys` that `store` has, polled until all are there or `deadline` passes.
std::vector<bool> waitForKeys(c10d::Store& store, const std::vector<std::string>& keys,
                              Clock::time_point deadline) {
  std::vector<bool> have(keys.size(), false);
  for (;;) {
    bool all = true;
    for (size_t i = 0; i < keys.size(); ++i) {
      if (!have[i]) have[i] = store.check({keys[i]});
      all = all && have[i];
    }
    if (all || Clock::now() >= deadline) return have;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

std::string rankList(const std::vector<int>& ranks) {
  std::string s;
  for (size_t i = 0; i < ranks.size(); ++i) {
    s += (i == 0 ? "" : i + 1 == ranks.size() ? " and " : ", ") + std::to_string(ranks[i]);
  }
  return s;
}

/// " in optimizer.lr (0.1 against 0.05) and 1 more key": where `theirs` differs from `ours`.
std::string differences(const std::string& theirs, const std::string& ours) {
  std::vector<ConfigDifference> diff;
  try {
    diff = diffConfigs({theirs, ours});
  } catch (const std::exception&) {
    return "";
  }
  if (diff.empty()) return "";
  const ConfigDifference& d = diff.front();
  std::string s = " in " + d.key + " (" + d.values[0] + " against " + d.values[1] + ")";
  if (diff.size() > 1) {
    s += " and " + std::to_string(diff.size() - 1) + " more key" + (diff.size() > 2 ? "s" : "");
  }
  return s;
}

/// Throws unless `dir` is a folder of this user that nobody else can open: its FileStore is
/// the rendezvous, and whoever could write it could join the run.
void requirePrivateFolder(const std::string& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) {
    throw InputError("cannot open the rendezvous folder " + dir + " (" + std::strerror(errno) +
                     ")");
  }
  if (!S_ISDIR(st.st_mode) || st.st_uid != ::geteuid() || (st.st_mode & 077) != 0) {
    throw InputError("the rendezvous folder " + dir +
                     " must be a folder of this user that nobody else can open (mode 0700)");
  }
}

/// Throws unless `token` can guard a rendezvous that the network can reach.
void requireToken(const std::string& token) {
  if (token.empty()) {
    throw InputError(std::string("a run on several machines needs a shared token (16 characters or "
                                 "more) so that no stranger joins it: ") +
                     kTokenAdvice);
  }
  if (token.size() < kMinTokenLength) {
    throw InputError("the token has " + std::to_string(token.size()) +
                     " characters; a run on several machines needs " +
                     std::to_string(kMinTokenLength) +
                     " or more (e.g. 32 random hex digits): " + kTokenAdvice);
  }
}

}  // namespace

struct WorkerGroup::Impl {
  c10::intrusive_ptr<c10d::Store> store;  ///< a FileStore (this machine) or a TCPStore
  c10::intrusive_ptr<c10d::ProcessGroupGloo> group;
  std::vector<std::vector<at::Tensor>> gathered;  ///< every rank's buffer (allReduceSum)
  std::string where;                              ///< "127.0.0.1:29500", or the rendezvous folder
};

WorkerGroup::WorkerGroup(const WorkerGroupOptions& options, int world,
                         const std::string& fingerprint)
    : impl_(std::make_unique<Impl>()),
      rank_(options.rank),
      world_(world),
      timeout_s_(options.timeout_s) {
  if (world < 2) throw InputError("a data-parallel run needs at least 2 workers");
  if (rank_ < 0 || rank_ >= world) {
    throw InputError("rank " + std::to_string(rank_) + " is outside a run of " +
                     std::to_string(world) + " workers (ranks 0 to " + std::to_string(world - 1) +
                     ")");
  }
  if (!(timeout_s_ > 0)) throw InputError("the worker timeout must be positive");
  // Ranks on this machine meet in a file and talk over loopback: nothing listens beyond it.
  // Ranks on several machines meet at rank 0's TCPStore (or torchrun's), which listens on the
  // network for the whole run, so each proves that it knows the token.
  const bool local = !options.rendezvous_dir.empty();
  if (local) {
    requirePrivateFolder(options.rendezvous_dir);
  } else {
    requireToken(options.token);
  }
  // c10d and Gloo log every failed connection attempt; the sentences below say what went
  // wrong once. c10's own level is what a LibTorch without glog filters by (the pip wheels');
  // one with glog (Debian's) filters by glog's, which c10's can only lower.
  FLAGS_caffe2_log_level = std::max(FLAGS_caffe2_log_level, 3);
#ifdef C10_USE_GLOG
  FLAGS_minloglevel = std::max(FLAGS_minloglevel, 3);
#endif
  // A write to a worker that died must fail as an error the roll call below can name, not
  // end this process with SIGPIPE (seen once in DataParallel.ALostWorkerFailsTheRunWithItsRank).
  std::signal(SIGPIPE, SIG_IGN);
  const auto timeout = millis(timeout_s_);
  int port = 0;  ///< the TCPStore's
  if (local) {
    impl_->where = options.rendezvous_dir;
    const std::string file = options.rendezvous_dir + kStoreFile;
    // Rank 0 starts first (LocalWorkers starts the others once it is ready): a store already
    // there is an earlier run's, whose keys would mislead this one.
    if (rank_ == 0 && ::access(file.c_str(), F_OK) == 0) {
      throw InputError("the rendezvous folder " + options.rendezvous_dir +
                       " holds an earlier run's store; give every run a new folder");
    }
    try {
      auto store = c10::make_intrusive<c10d::FileStore>(file, world);
      store->setTimeout(timeout);
      impl_->store = store;
    } catch (const std::exception& e) {
      throw InputError("rank " + std::to_string(rank_) + " cannot open the rendezvous in " +
                       options.rendezvous_dir + " (" + firstLine(e) + ")");
    }
  } else {
    const std::string where = options.host + ":" + std::to_string(options.port);
    c10d::TCPStoreOptions store_options;
    store_options.port = static_cast<std::uint16_t>(options.port);
    // Under torchrun's agent store every rank is a client; else rank 0 hosts the store.
    const bool hosts = rank_ == 0 && !options.launcher_store;
    store_options.isServer = hosts;
    store_options.waitWorkers = false;
    store_options.timeout = timeout;
    // Rank 0 listens only on its address towards the master (loopback when the master is
    // 127.0.0.1): c10d would listen on every interface.
    std::string listen_at;
    if (hosts) {
      listen_at = localAddressTowards(options.host, options.port);
      if (listen_at.empty()) {
        throw InputError("rank 0 cannot listen at " + where +
                         ": this machine has no address on the route to " + options.host +
                         "; give --master this machine's address");
      }
    }
    try {
      std::optional<ListenAddress> only_there;
      if (hosts) only_there.emplace(listen_at);
      c10::intrusive_ptr<c10d::TCPStore> store =
          c10::make_intrusive<c10d::TCPStore>(options.host, store_options);
      port = store->getPort();
      if (options.store_prefix.empty()) {
        impl_->store = store;
      } else {
        impl_->store = c10::make_intrusive<c10d::PrefixStore>(options.store_prefix, store);
      }
    } catch (const InputError&) {
      throw;
    } catch (const std::exception& e) {
      if (hosts) {
        const std::string detail = firstLine(e);
        throw InputError("rank 0 cannot listen on port " + std::to_string(options.port) +
                         " for the other workers" +
                         (detail.find("in use") != std::string::npos
                              ? ": the port is in use; choose another"
                              : " (" + detail + ")"));
      }
      throw InputError(
          "rank " + std::to_string(rank_) + " cannot reach " +
          (options.launcher_store ? "the launcher's store" : "rank 0") + " at " + where +
          " within " + seconds(timeout_s_) +
          (options.launcher_store ? "" : "; start rank 0 first and check the address"));
    }
    impl_->where = options.host + ":" + std::to_string(port);
  }
  c10d::Store& store = *impl_->store;
  const auto deadline = Clock::now() + timeout;
  // The token's proofs: rank 0 draws a salt and proves first; each other rank checks that
  // proof before it says anything about itself, then proves in its hello. Neither side goes on
  // with a stranger, and the token itself never reaches the store.
  std::string salt;
  std::string proof = "-";  // ranks on this machine: the private folder is the proof
  if (!local && rank_ == 0) {
    try {
      salt = randomHex(16);
    } catch (const std::exception& e) {
      throw InputError(std::string("rank 0 cannot draw a salt for the token: ") + e.what());
    }
    store.set(kSalt, bytes(salt));
    store.set(kProof0, bytes(tokenProof(options.token, 0, salt)));
  } else if (!local) {
    const std::vector<bool> have = waitForKeys(store, {kSalt, kProof0}, deadline);
    if (!have[0] || !have[1]) {
      throw InputError("rank 0 at " + impl_->where + " did not answer within " +
                       seconds(timeout_s_));
    }
    salt = text(store.get(kSalt));
    const bool master_knows =
        sameProof(text(store.get(kProof0)), tokenProof(options.token, 0, salt));
    proof = master_knows ? tokenProof(options.token, rank_, salt) : kRefused;
  }
  if (rank_ == 0 && options.on_listening) options.on_listening(port);

  if (store.add(kJoined + std::to_string(rank_), 1) > 1) {
    throw InputError("rank " + std::to_string(rank_) + " was started twice for the run at " +
                     impl_->where);
  }
  const std::string torch_version = TORCH_VERSION;
  if (proof == kRefused) {
    // Rank 0 learns at once and stops too; this rank tells it nothing else.
    store.set(kHello + std::to_string(rank_),
              bytes(std::to_string(world) + "\n-\n" + kRefused + "\n"));
    store.add(kVerdictRead, 1);
    throw InputError("rank " + std::to_string(rank_) + " was refused by the master at " +
                     impl_->where + ": its token does not match (" + kTokenAdvice + ")");
  }
  store.set(kHello + std::to_string(rank_), bytes(std::to_string(world) + "\n" + torch_version +
                                                  "\n" + proof + "\n" + fingerprint));
  if (rank_ == 0) {
    std::vector<std::string> keys;
    for (int r = 1; r < world; ++r) keys.push_back(kHello + std::to_string(r));
    const std::vector<bool> have = waitForKeys(store, keys, deadline);
    std::string verdict = "ok " + std::to_string(world);
    std::vector<int> missing;
    for (int r = 1; r < world; ++r) {
      if (!have[r - 1]) missing.push_back(r);
    }
    if (!missing.empty()) {
      verdict = std::string(missing.size() == 1 ? "rank " : "ranks ") + rankList(missing) + " of " +
                std::to_string(world) + " workers did not join within " + seconds(timeout_s_) +
                " at " + impl_->where;
    }
    for (int r = 1; r < world && verdict.rfind("ok", 0) == 0; ++r) {
      const std::vector<std::string> hello = lines(text(store.get(keys[r - 1])));
      const std::string rank = "rank " + std::to_string(r);
      if (hello.size() != 4) {
        verdict = rank + " is not an AccumLab worker of this version";
      } else if (!local && !sameProof(hello[2], tokenProof(options.token, r, salt))) {
        // Checked first: a rank without the token learns nothing of this run.
        verdict = rank + " presented a token that does not match rank 0's; " + kTokenAdvice;
      } else if (hello[0] != std::to_string(world)) {
        verdict = rank + " was started for " + hello[0] + " workers and rank 0 for " +
                  std::to_string(world) + "; give every rank the same world size";
      } else if (hello[1] != torch_version) {
        verdict = rank + " runs LibTorch " + hello[1] + " and rank 0 LibTorch " + torch_version +
                  "; install the same LibTorch on every machine";
      } else if (hello[3] != fingerprint) {
        verdict = rank + "'s experiment differs from rank 0's" +
                  differences(hello[3], fingerprint) + "; start every rank with the same options";
      }
    }
    store.set(kVerdict, bytes(verdict));
    if (verdict.rfind("ok", 0) != 0) {
      // Let the ranks that joined read the sentence before the store goes away with rank 0.
      const auto read_by = Clock::now() + millis(std::min(2.0, timeout_s_));
      while (store.add(kVerdictRead, 0) < world - 1 - static_cast<int64_t>(missing.size()) &&
             Clock::now() < read_by) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
      throw InputError(verdict);
    }
  } else {
    if (!waitForKeys(store, {kVerdict}, deadline)[0]) {
      throw InputError("rank 0 at " + impl_->where + " did not answer within " +
                       seconds(timeout_s_));
    }
    const std::string verdict = text(store.get(kVerdict));
    store.add(kVerdictRead, 1);
    if (verdict.rfind("ok ", 0) != 0) throw InputError(verdict);
    if (verdict != "ok " + std::to_string(world)) {
      throw InputError("rank 0 was started for " + verdict.substr(3) + " workers and rank " +
                       std::to_string(rank_) + " for " + std::to_string(world) +
                       "; give every rank the same world size");
    }
  }

  auto group_options = c10d::ProcessGroupGloo::Options::create(timeout);
  try {
    group_options->devices.push_back(glooDevice(local, options.host, port));
  } catch (const std::exception& e) {
    throw InputError("rank " + std::to_string(rank_) +
                     " has no network device for the other workers (" + firstLine(e) + ")");
  }
  group_options->threads = 2;
  try {
    impl_->group =
        c10::make_intrusive<c10d::ProcessGroupGloo>(impl_->store, rank_, world, group_options);
  } catch (const std::exception& e) {
    throw InputError("the " + std::to_string(world) + " workers at " + impl_->where +
                     " could not connect to each other (" + firstLine(e) + ")");
  }
}

WorkerGroup::~WorkerGroup() = default;

void WorkerGroup::leave() { impl_->group.reset(); }

void WorkerGroup::allReduceSum(torch::Tensor& buffer) {
  const auto t0 = Clock::now();
  ++reduces_;
  if (!impl_->group) throw WorkerLost("this rank has left the run; it sums nothing more");
  try {
    std::vector<torch::Tensor> tensors{buffer};
    if (world_ <= kGatherUpTo) {
      // Every rank's buffer to every rank, summed here in rank order: the same bits on each.
      auto& gathered = impl_->gathered;
      if (gathered.empty() || !gathered[0][0].sizes().equals(buffer.sizes()) ||
          gathered[0][0].scalar_type() != buffer.scalar_type()) {
        gathered.assign(1, {});
        for (int r = 0; r < world_; ++r) gathered[0].push_back(torch::empty_like(buffer));
      }
      impl_->group->allgather(gathered, tensors)->wait(millis(timeout_s_));
      torch::NoGradGuard no_grad;
      buffer.copy_(gathered[0][0]);
      for (int r = 1; r < world_; ++r) buffer.add_(gathered[0][r]);
    } else {
      impl_->group->allreduce(tensors)->wait(millis(timeout_s_));
    }
  } catch (const std::exception& e) {
    // Gloo's messages start with its source position: "[…/pair.cc:598] Connection closed …".
    std::string detail = firstLine(e);
    if (!detail.empty() && detail.front() == '[') detail = detail.substr(detail.find("] ") + 2);
    throw WorkerLost(whoIsGone(detail));
  }
  last_s_ = std::chrono::duration<double>(Clock::now() - t0).count();
  total_s_ += last_s_;
}

std::string WorkerGroup::whoIsGone(const std::string& detail) {
  // Every rank still there says so on the store; whoever does not answer is the one lost.
  // Not keyed by the window: a ring all-reduce may complete on one rank and fail on another,
  // which then fails in the next one. (The run ends after its first loss.)
  std::vector<int> gone;
  try {
    c10d::Store& store = *impl_->store;
    store.set(kAlive + std::to_string(rank_), bytes("1"));
    std::vector<std::string> keys;
    for (int r = 0; r < world_; ++r) keys.push_back(kAlive + std::to_string(r));
    const std::vector<bool> have = waitForKeys(store, keys, Clock::now() + millis(kRollCallS));
    for (int r = 0; r < world_; ++r) {
      if (!have[r]) gone.push_back(r);
    }
  } catch (const std::exception&) {
    // A TCPStore lives in rank 0: it is gone with it.
    if (rank_ != 0) gone = {0};
  }
  const std::string who =
      gone.empty() ? "a worker"
                   : (gone.size() == 1 ? "worker rank " : "worker ranks ") + rankList(gone);
  return who + " stopped responding in the all-reduce of window " + std::to_string(reduces_) +
         ": it died, or hung past the " + seconds(timeout_s_) + " timeout (Gloo: " + detail + ")";
}

// One accum window's all-reduce (reduceWindow): this rank's gradient, its share of the
// window's sums and its wish to stop, packed into one buffer.

void WorkerGroup::reduceWindow(std::vector<torch::Tensor>& params,
                               const std::vector<torch::Tensor>& share, int64_t window_samples,
                               WindowResult& r) {
  double share_samples = 0;
  for (const auto& mb : share) share_samples += static_cast<double>(mb.size(0));
  std::vector<torch::Tensor> parts;
  parts.reserve(params.size() + 1);
  int64_t grad_numel = 0;
  for (const auto& p : params) {
    parts.push_back(p.grad().reshape(-1));
    grad_numel += p.numel();
  }
  // The sums ride in the gradients' buffer: one all-reduce per window.
  enum Sum {
    kLoss,
    kMean,
    kMeanSq,
    kBatches,
    kSmallSq,
    kInvSize,
    kMeasured,
    kSamples,
    kStop,
    kCount
  };
  double sums[kCount] = {r.loss_sum, r.mean_sum,     r.mean_sq_sum,
                         r.batches,  r.small_sq_sum, r.inv_size_sum,
                         r.measured, share_samples,  stopWanted() ? 1.0 : 0.0};
  parts.push_back(
      torch::from_blob(sums, {kCount}, torch::kFloat64).to(params.front().grad().options()));
  torch::Tensor buffer = torch::cat(parts);
  allReduceSum(buffer);
  torch::NoGradGuard no_grad;
  int64_t at = 0;
  for (auto& p : params) {
    p.mutable_grad().copy_(buffer.narrow(0, at, p.numel()).view_as(p));
    at += p.numel();
  }
  const torch::Tensor total = buffer.narrow(0, grad_numel, kCount).to(torch::kCPU, torch::kFloat64);
  const double* t = total.data_ptr<double>();
  if (std::llround(t[kSamples]) != window_samples) {
    throw std::runtime_error("the workers trained " + std::to_string(std::llround(t[kSamples])) +
                             " samples of a window of " + std::to_string(window_samples) +
                             ": they do not share one sample stream");
  }
  r.loss_sum = t[kLoss];
  r.mean_sum = t[kMean];
  r.mean_sq_sum = t[kMeanSq];
  r.batches = t[kBatches];
  r.small_sq_sum = t[kSmallSq];
  r.inv_size_sum = t[kInvSize];
  r.measured = t[kMeasured];
  const double norm = buffer.narrow(0, 0, grad_numel).norm().item<double>();
  r.grad_sq = norm * norm;
  r.finish();
  agreeStop(t[kStop] > 0);
}

}  // namespace accumlab
