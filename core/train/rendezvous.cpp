// SPDX-License-Identifier: GPL-3.0-or-later
// How the ranks of a data-parallel run meet (docs/data-parallel.md): the store, the token's
// proofs, every rank's hello and rank 0's verdict, and the roll call after a lost rank.
#include "train/rendezvous.h"

#include <sys/stat.h>
#include <torch/version.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <thread>
#include <torch/csrc/distributed/c10d/FileStore.hpp>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include "accumlab/input_error.h"
#include "accumlab/run_store.h"
#include "train/gloo_device.h"
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
// After a failed all-reduce, how long the ranks that are still there wait for each other.
constexpr double kRollCallS = 3.0;

std::vector<uint8_t> bytes(const std::string& s) { return {s.begin(), s.end()}; }
std::string text(const std::vector<uint8_t>& b) { return {b.begin(), b.end()}; }

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

std::string firstLine(const std::exception& e) {
  const std::string what = e.what();
  return what.substr(0, what.find('\n'));
}

std::string secondsText(double s) {
  std::string t = std::to_string(s);
  t.erase(t.find_last_not_of('0') + 1);
  if (!t.empty() && t.back() == '.') t.pop_back();
  return t + " s";
}

std::chrono::milliseconds toMillis(double s) {
  return std::chrono::milliseconds(static_cast<int64_t>(s * 1000.0));
}

std::string rankList(const std::vector<int>& ranks) {
  std::string s;
  for (size_t i = 0; i < ranks.size(); ++i) {
    s += (i == 0 ? "" : i + 1 == ranks.size() ? " and " : ", ") + std::to_string(ranks[i]);
  }
  return s;
}

Rendezvous::Rendezvous(const WorkerGroupOptions& options, int world, const std::string& fingerprint)
    : rank_(options.rank), timeout_s_(options.timeout_s), local_(!options.rendezvous_dir.empty()) {
  // Ranks on this machine meet in a file and talk over loopback: nothing listens beyond it.
  // Ranks on several machines meet at rank 0's TCPStore (or torchrun's), which listens on the
  // network for the whole run, so each proves that it knows the token.
  if (local_) {
    requirePrivateFolder(options.rendezvous_dir);
  } else {
    requireToken(options.token);
  }
  const auto timeout = toMillis(timeout_s_);
  if (local_) {
    where_ = options.rendezvous_dir;
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
      store_ = store;
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
      port_ = store->getPort();
      if (options.store_prefix.empty()) {
        store_ = store;
      } else {
        store_ = c10::make_intrusive<c10d::PrefixStore>(options.store_prefix, store);
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
          " within " + secondsText(timeout_s_) +
          (options.launcher_store ? "" : "; start rank 0 first and check the address"));
    }
    where_ = options.host + ":" + std::to_string(port_);
  }
  c10d::Store& store = *store_;
  const auto deadline = Clock::now() + timeout;
  // The token's proofs: rank 0 draws a salt and proves first; each other rank checks that
  // proof before it says anything about itself, then proves in its hello. Neither side goes on
  // with a stranger, and the token itself never reaches the store.
  std::string salt;
  std::string proof = "-";  // ranks on this machine: the private folder is the proof
  if (!local_ && rank_ == 0) {
    try {
      salt = randomHex(16);
    } catch (const std::exception& e) {
      throw InputError(std::string("rank 0 cannot draw a salt for the token: ") + e.what());
    }
    store.set(kSalt, bytes(salt));
    store.set(kProof0, bytes(tokenProof(options.token, 0, salt)));
  } else if (!local_) {
    const std::vector<bool> have = waitForKeys(store, {kSalt, kProof0}, deadline);
    if (!have[0] || !have[1]) {
      throw InputError("rank 0 at " + where_ + " did not answer within " + secondsText(timeout_s_));
    }
    salt = text(store.get(kSalt));
    const bool master_knows =
        sameProof(text(store.get(kProof0)), tokenProof(options.token, 0, salt));
    proof = master_knows ? tokenProof(options.token, rank_, salt) : kRefused;
  }
  if (rank_ == 0 && options.on_listening) options.on_listening(port_);

  if (store.add(kJoined + std::to_string(rank_), 1) > 1) {
    throw InputError("rank " + std::to_string(rank_) + " was started twice for the run at " +
                     where_);
  }
  const std::string torch_version = TORCH_VERSION;
  if (proof == kRefused) {
    // Rank 0 learns at once and stops too; this rank tells it nothing else.
    store.set(kHello + std::to_string(rank_),
              bytes(std::to_string(world) + "\n-\n" + kRefused + "\n"));
    store.add(kVerdictRead, 1);
    throw InputError("rank " + std::to_string(rank_) + " was refused by the master at " + where_ +
                     ": its token does not match (" + kTokenAdvice + ")");
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
                std::to_string(world) + " workers did not join within " + secondsText(timeout_s_) +
                " at " + where_;
    }
    for (int r = 1; r < world && verdict.rfind("ok", 0) == 0; ++r) {
      const std::vector<std::string> hello = lines(text(store.get(keys[r - 1])));
      const std::string rank = "rank " + std::to_string(r);
      if (hello.size() != 4) {
        verdict = rank + " is not an AccumLab worker of this version";
      } else if (!local_ && !sameProof(hello[2], tokenProof(options.token, r, salt))) {
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
      const auto read_by = Clock::now() + toMillis(std::min(2.0, timeout_s_));
      while (store.add(kVerdictRead, 0) < world - 1 - static_cast<int64_t>(missing.size()) &&
             Clock::now() < read_by) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
      throw InputError(verdict);
    }
  } else {
    if (!waitForKeys(store, {kVerdict}, deadline)[0]) {
      throw InputError("rank 0 at " + where_ + " did not answer within " + secondsText(timeout_s_));
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
}

std::vector<int> Rendezvous::rollCall(int world) {
  // Every rank still there says so on the store; whoever does not answer is the one lost.
  // Not keyed by the window: a ring all-reduce may complete on one rank and fail on another,
  // which then fails in the next one. (The run ends after its first loss.)
  std::vector<int> gone;
  try {
    c10d::Store& store = *store_;
    store.set(kAlive + std::to_string(rank_), bytes("1"));
    std::vector<std::string> keys;
    for (int r = 0; r < world; ++r) keys.push_back(kAlive + std::to_string(r));
    const std::vector<bool> have = waitForKeys(store, keys, Clock::now() + toMillis(kRollCallS));
    for (int r = 0; r < world; ++r) {
      if (!have[r]) gone.push_back(r);
    }
  } catch (const std::exception&) {
    // A TCPStore lives in rank 0: it is gone with it.
    if (rank_ != 0) gone = {0};
  }
  return gone;
}

}  // namespace accumlab
