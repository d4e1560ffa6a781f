// SPDX-License-Identifier: GPL-3.0-or-later
// Data-parallel workers (docs/data-parallel.md): N ranks, here threads of this process on
// localhost, each accumulating its share of every window, end with the weights of one process
// training the big batch m·K·N; stops, lost workers, rendezvous errors, and the two ways ranks
// meet: a private folder (ranks on one machine) and rank 0's TCPStore with a shared token.
#include <gtest/gtest.h>

#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "accumlab/input_error.h"
#include "accumlab/trainer.h"
#include "recording_sink.h"
#include "train/window_plan.h"

namespace accumlab {
namespace {

using testing::armOf;
using testing::RecordingSink;

/// One rank's outcome.
struct Rank {
  RunSummary summary;
  RecordingSink sink;
  std::string error;  ///< what run() threw, if it did
};

/// The token of the tests' runs over TCP.
constexpr char kToken[] = "0123456789abcdef-test-token";
/// The sentences' advice about tokens.
constexpr char kTokenAdvice[] = "set the same --token-file or ACCUMLAB_TOKEN on every rank";

/// A private (0700) temporary folder, removed with what is in it.
class TempFolder {
 public:
  TempFolder() {
    std::string t = (std::filesystem::temp_directory_path() / "accumlab-dp-test-XXXXXX").string();
    if (::mkdtemp(t.data())) path_ = t;
  }
  ~TempFolder() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

/// Where the ranks meet: in a private folder, as `--workers N` on one machine, or at rank 0's
/// TCPStore with the token, as ranks on several machines.
enum class Meeting { kFolder, kTcp };

/// Runs `configs.size()` ranks of one data-parallel run as threads; `prepare` may adjust a
/// rank's options and sink before it joins.
std::vector<Rank> runRanks(
    const std::vector<ExperimentConfig>& configs, double timeout_s = 60,
    std::function<void(int, Trainer&, WorkerGroupOptions&, RecordingSink&)> prepare = {},
    Meeting meeting = Meeting::kFolder) {
  const int n = static_cast<int>(configs.size());
  std::vector<Rank> ranks(n);
  TempFolder folder;
  std::promise<int> listening;
  auto body = [&](int rank, int at) {
    Trainer trainer(configs[rank]);
    WorkerGroupOptions options;
    options.rank = rank;
    if (meeting == Meeting::kFolder) {
      options.rendezvous_dir = folder.path();
    } else {
      options.port = at;
      options.token = kToken;
    }
    options.timeout_s = timeout_s;
    if (rank == 0) options.on_listening = [&listening](int p) { listening.set_value(p); };
    if (prepare) prepare(rank, trainer, options, ranks[rank].sink);
    trainer.joinWorkers(options);
    try {
      ranks[rank].summary = trainer.run(ranks[rank].sink);
    } catch (const std::exception& e) {
      ranks[rank].error = e.what();
      if (rank == 0) {
        try {
          listening.set_value(-1);  // rank 0 failed before it listened: nobody to join
        } catch (const std::future_error&) {
        }
      }
    }
  };
  std::vector<std::thread> threads;
  threads.emplace_back(body, 0, 0);
  const int at = listening.get_future().get();
  if (at >= 0) {
    for (int r = 1; r < n; ++r) threads.emplace_back(body, r, at);
  }
  for (auto& t : threads) t.join();
  return ranks;
}

std::vector<ExperimentConfig> sameConfig(const ExperimentConfig& c) {
  return std::vector<ExperimentConfig>(static_cast<size_t>(c.workers), c);
}

// 933 samples leave every epoch a short last window, shared unevenly by the workers.
constexpr int64_t kTrainSamples = 933;
constexpr double kClip = 0.05;

ExperimentConfig dataParallelConfig(int workers, OptimizerKind opt, DType dtype) {
  ExperimentConfig c;
  c.data = "blobs:64";
  c.synthetic_samples = kTrainSamples;
  c.val_fraction = 0;
  c.model = "mlp";
  c.micro_batch = 8;
  c.accum = 4;
  c.workers = workers;
  c.arms = {ArmKind::kAccum, ArmKind::kBigBatch};
  c.optimizer.kind = opt;
  c.optimizer.lr = opt == OptimizerKind::kSgd ? 0.05 : 1e-3;
  c.optimizer.momentum = 0.9;
  c.optimizer.weight_decay = opt == OptimizerKind::kAdamW ? 0.05 : 0.0;
  c.optimizer.clip_norm = kClip;
  c.window_policy = WindowPolicy::kFlushExact;
  c.dtype = dtype;
  // Enough whole epochs for at least 100 steps.
  const int64_t window = c.micro_batch * c.accum * workers;
  const int64_t per_epoch = (kTrainSamples + window - 1) / window;
  c.epochs = static_cast<double>((100 + per_epoch - 1) / per_epoch);
  c.probe_repeats = 0;
  return c;
}

/// workers, optimizer, precision.
using Case = std::tuple<int, OptimizerKind, DType>;

class DataParallelEquivalence : public ::testing::TestWithParam<Case> {};

TEST_P(DataParallelEquivalence, WorkersEndWithTheBigBatchWeights) {
  const auto [workers, opt, dtype] = GetParam();
  const ExperimentConfig c = dataParallelConfig(workers, opt, dtype);
  const std::vector<Rank> ranks = runRanks(sameConfig(c));
  for (int r = 0; r < workers; ++r) ASSERT_EQ(ranks[r].error, "") << "rank " << r;

  const ArmSummary& accum = armOf(ranks[0].summary, ArmKind::kAccum);
  const ArmSummary& big = armOf(ranks[0].summary, ArmKind::kBigBatch);
  ASSERT_EQ(accum.status, ArmStatus::kFinished) << accum.message;
  ASSERT_EQ(big.status, ArmStatus::kFinished) << big.message;
  EXPECT_GE(accum.steps, 100);
  EXPECT_EQ(accum.steps, big.steps);
  EXPECT_EQ(accum.samples_seen, big.samples_seen);
  // Stated tolerances (tests/core/tolerances.h's levels): float64 to the last digits. In
  // float32 the sums' other order is a rounding difference that training may amplify until the
  // trajectories part (AdamW divides by √v): one process's accum and big-batch part at update
  // 157 of 300 with this config on LibTorch 1.13, and 3 workers part at update 91 of 100 on
  // LibTorch 2.11, whose float64 run agrees to 1e-12. What accumulation or the all-reduce could
  // get wrong shows at the first windows, the short one of the first epoch (update 10) or
  // before: the float32 arms agree to rounding for the first half of the run, and to the end
  // unless they parted.
  if (dtype == DType::kFloat64) {
    EXPECT_LE(accum.equivalence_rel_diff, 1e-12);
  } else if (accum.trajectories_parted_at_step == -1) {
    EXPECT_LE(accum.equivalence_rel_diff, 1e-5);
  } else {
    EXPECT_GT(accum.trajectories_parted_at_step, accum.steps / 2)
        << "parted early, with a difference of " << accum.equivalence_rel_diff;
  }
  EXPECT_TRUE(std::isfinite(accum.allreduce_s));
  EXPECT_GT(accum.allreduce_s, 0.0);

  // Every rank ends with the same weights, to the bit, and trained only the accum arm.
  for (int r = 1; r < workers; ++r) {
    ASSERT_EQ(ranks[r].summary.arms.size(), 1u);
    EXPECT_EQ(ranks[r].summary.arms[0].arm, ArmKind::kAccum);
    EXPECT_EQ(ranks[r].summary.arms[0].weights_digest, accum.weights_digest) << "rank " << r;
  }

  // The records: accum and big-batch paired step by step; every window of m·K·N samples,
  // or the short one at an epoch end (a worker may have no share of it); clipping engaged.
  const auto a = ranks[0].sink.of(ArmKind::kAccum);
  const auto b = ranks[0].sink.of(ArmKind::kBigBatch);
  ASSERT_EQ(a.size(), b.size());
  const int64_t window = c.micro_batch * c.accum * workers;
  int short_windows = 0, clipped = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].samples_seen, b[i].samples_seen);
    EXPECT_EQ(a[i].window_samples, b[i].window_samples);
    // Rank 0 checks the all-reduced gradient of the whole window against its samples as one
    // batch: every 10th window and every irregular one, the short window at each epoch end.
    if ((i + 1) % static_cast<size_t>(c.grad_check_every) == 0 || a[i].window_samples < window) {
      EXPECT_TRUE(std::isfinite(a[i].grad_equiv)) << "step " << i + 1 << " was not checked";
    }
    if (a[i].window_samples < window) {
      ++short_windows;
      EXPECT_EQ(a[i].window_samples, kTrainSamples % window);
      // The micro-batches of the update, of every worker: 37 samples are 8+8+8+8+5.
      EXPECT_EQ(a[i].accum, (a[i].window_samples + c.micro_batch - 1) / c.micro_batch);
    } else {
      EXPECT_EQ(a[i].accum, c.accum * workers);
    }
    if (a[i].grad_norm > kClip) ++clipped;
    EXPECT_TRUE(std::isfinite(a[i].allreduce_ms));
    EXPECT_NEAR(a[i].loss, b[i].loss, dtype == DType::kFloat64 ? 1e-10 : 1e-4) << "step " << i + 1;
  }
  EXPECT_EQ(short_windows, static_cast<int>(c.epochs));
  EXPECT_GT(clipped, 0);
  // The same stated tolerances as one process's gradient check (docs/measurements.md): the
  // shards' sum in rank order against the big batch's one sum is a rounding difference only.
  EXPECT_GE(accum.grad_equivalence_checks, accum.steps / c.grad_check_every);
  EXPECT_EQ(accum.grad_equivalence_uneven_checks, short_windows);
  // (A float32 check above 1e-5 that its float64 repeat finds exact is a kink, not a fault.)
  if (dtype == DType::kFloat64) {
    EXPECT_LE(accum.grad_equivalence_rel_diff, 1e-12);
  } else {
    EXPECT_LE(accum.grad_equivalence_rel_diff_without_kinks, 1e-5);
  }
  std::printf("%d workers, %s, %s: %zu steps, accum ↔ big-batch %.3g, %lld gradient checks %.3g\n",
              workers, toString(opt).c_str(), toString(dtype).c_str(), a.size(),
              accum.equivalence_rel_diff, static_cast<long long>(accum.grad_equivalence_checks),
              accum.grad_equivalence_rel_diff);
}

INSTANTIATE_TEST_SUITE_P(WorkersOptimizersPrecisions, DataParallelEquivalence,
                         ::testing::Combine(::testing::Values(2, 3),
                                            ::testing::Values(OptimizerKind::kSgd,
                                                              OptimizerKind::kAdamW),
                                            ::testing::Values(DType::kFloat32, DType::kFloat64)),
                         [](const auto& info) {
                           return std::to_string(std::get<0>(info.param)) + "workers_" +
                                  toString(std::get<1>(info.param)) + "_" +
                                  toString(std::get<2>(info.param));
                         });

TEST(DataParallel, FiveWorkersSumWithGloosAllReduceAndStillMatch) {
  // Up to 4 ranks gather every buffer and sum it in rank order; from 5, Gloo's ring sums.
  ExperimentConfig c = dataParallelConfig(5, OptimizerKind::kSgd, DType::kFloat64);
  c.accum = 2;
  c.epochs = 4;
  const std::vector<Rank> ranks = runRanks(sameConfig(c));
  for (int r = 0; r < 5; ++r) ASSERT_EQ(ranks[r].error, "") << "rank " << r;
  const ArmSummary& accum = armOf(ranks[0].summary, ArmKind::kAccum);
  ASSERT_EQ(accum.status, ArmStatus::kFinished) << accum.message;
  EXPECT_EQ(accum.steps, 4 * 12);  // 933 samples in windows of 8·2·5 = 80: 12 per epoch
  EXPECT_LE(accum.equivalence_rel_diff, 1e-12);
  for (int r = 1; r < 5; ++r)
    EXPECT_EQ(ranks[r].summary.arms[0].weights_digest, accum.weights_digest);
}

TEST(DataParallel, NoiseFiguresComeFromEveryWorkersMicroBatches) {
  ExperimentConfig c = dataParallelConfig(2, OptimizerKind::kSgd, DType::kFloat64);
  c.window_policy = WindowPolicy::kStream;
  c.arms = {ArmKind::kAccum};
  c.epochs = 1;
  const std::vector<Rank> ranks = runRanks(sameConfig(c));
  ASSERT_EQ(ranks[0].error, "");
  // The same run in one process, accumulating K·N micro-batches: the same figures.
  ExperimentConfig one = c;
  one.workers = 1;
  one.accum = c.accum * 2;
  RecordingSink sink;
  Trainer(one).run(sink);
  const auto a = ranks[0].sink.of(ArmKind::kAccum);
  const auto b = sink.of(ArmKind::kAccum);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_TRUE(std::isfinite(a[i].g_small_sq)) << "step " << i + 1;
    EXPECT_NEAR(a[i].g_small_sq, b[i].g_small_sq, 1e-9 * b[i].g_small_sq);
    EXPECT_NEAR(a[i].g_big_sq, b[i].g_big_sq, 1e-9 * b[i].g_big_sq);
    EXPECT_NEAR(a[i].b_small, b[i].b_small, 1e-12 * b[i].b_small);
    EXPECT_EQ(a[i].b_big, b[i].b_big);
    EXPECT_NEAR(a[i].mb_loss_var, b[i].mb_loss_var, 1e-9 * (b[i].mb_loss_var + 1e-12));
    EXPECT_NEAR(a[i].loss, b[i].loss, 1e-12);
  }
}

TEST(DataParallel, AStopOnOneRankStopsEveryRankAfterTheSameWindow) {
  ExperimentConfig c = dataParallelConfig(3, OptimizerKind::kSgd, DType::kFloat32);
  c.epochs = 50;
  const auto stop_rank_2 = [](int rank, Trainer& t, WorkerGroupOptions&, RecordingSink& sink) {
    if (rank != 2) return;
    sink.on_step = [&t](const StepRecord& r) {
      if (r.step == 7) t.requestStop("stopped on rank 2");
    };
  };
  const std::vector<Rank> ranks = runRanks(sameConfig(c), 60, stop_rank_2);
  int64_t steps = -1;
  for (int r = 0; r < 3; ++r) {
    ASSERT_EQ(ranks[r].error, "");
    const ArmSummary& accum = armOf(ranks[r].summary, ArmKind::kAccum);
    EXPECT_EQ(accum.status, ArmStatus::kStopped) << "rank " << r;
    if (steps < 0) steps = accum.steps;
    EXPECT_EQ(accum.steps, steps) << "rank " << r;
  }
  EXPECT_EQ(steps, 8);  // the stop rides on the next window's all-reduce
  EXPECT_EQ(armOf(ranks[2].summary, ArmKind::kAccum).message, "stopped on rank 2");
  EXPECT_EQ(armOf(ranks[0].summary, ArmKind::kAccum).message,
            "stopped because another worker was stopped");
}

TEST(DataParallel, ALostWorkerFailsTheRunWithItsRank) {
  ExperimentConfig c = dataParallelConfig(3, OptimizerKind::kSgd, DType::kFloat32);
  c.epochs = 50;
  const auto crash_rank_1 = [](int rank, Trainer&, WorkerGroupOptions&, RecordingSink& sink) {
    if (rank != 1) return;
    sink.on_step = [](const StepRecord& r) {
      if (r.step == 5) throw std::runtime_error("rank 1 crashes");
    };
  };
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<Rank> ranks = runRanks(sameConfig(c), 10, crash_rank_1);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(took, 10.0 + 5.0);  // the timeout and the roll call, at most
  const ArmSummary& accum = armOf(ranks[0].summary, ArmKind::kAccum);
  EXPECT_EQ(accum.status, ArmStatus::kFailed);
  EXPECT_NE(accum.message.find("worker rank 1 stopped responding"), std::string::npos)
      << accum.message;
  const ArmSummary& big = armOf(ranks[0].summary, ArmKind::kBigBatch);
  EXPECT_EQ(big.status, ArmStatus::kStopped);
  EXPECT_EQ(armOf(ranks[2].summary, ArmKind::kAccum).status, ArmStatus::kFailed);
  EXPECT_LT(accum.steps, 10);
}

/// What each rank threw, for a run expected to fail at the rendezvous.
std::vector<std::string> rendezvousErrors(const std::vector<ExperimentConfig>& configs,
                                          double timeout_s, Meeting meeting = Meeting::kFolder) {
  std::vector<std::string> errors;
  for (const Rank& r : runRanks(configs, timeout_s, {}, meeting)) errors.push_back(r.error);
  return errors;
}

TEST(DataParallel, MismatchedWorldSizesAreOneSentence) {
  ExperimentConfig two = dataParallelConfig(2, OptimizerKind::kSgd, DType::kFloat32);
  ExperimentConfig three = two;
  three.workers = 3;
  const auto errors = rendezvousErrors({two, three}, 10);
  for (const auto& e : errors) {
    EXPECT_EQ(
        e,
        "rank 1 was started for 3 workers and rank 0 for 2; give every rank the same world size");
  }
}

TEST(DataParallel, MismatchedConfigsNameTheKey) {
  ExperimentConfig c = dataParallelConfig(2, OptimizerKind::kSgd, DType::kFloat32);
  ExperimentConfig other = c;
  other.optimizer.lr = 0.1;
  for (const auto& e : rendezvousErrors({c, other}, 10)) {
    EXPECT_EQ(e,
              "rank 1's experiment differs from rank 0's in optimizer.lr (0.1 against 0.05); "
              "start every rank with the same options");
  }
}

TEST(DataParallel, ARankThatNeverComesIsNamed) {
  ExperimentConfig c = dataParallelConfig(3, OptimizerKind::kSgd, DType::kFloat32);
  // Only rank 0 runs: ranks 1 and 2 never start.
  const auto errors = rendezvousErrors({c}, 1);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("ranks 1 and 2 of 3 workers did not join within 1 s"), std::string::npos)
      << errors[0];
}

TEST(DataParallel, APortInUseAndAnAbsentMasterAreOneSentence) {
  // A port this test holds.
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(fd, 1), 0);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  const int port = ntohs(addr.sin_port);
  ExperimentConfig c = dataParallelConfig(2, OptimizerKind::kSgd, DType::kFloat32);

  Trainer rank0(c);
  WorkerGroupOptions o0;
  o0.port = port;
  o0.token = kToken;
  o0.timeout_s = 1;
  rank0.joinWorkers(o0);
  RecordingSink sink;
  try {
    rank0.run(sink);
    ADD_FAILURE() << "rank 0 listened on a port in use";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "rank 0 cannot listen on port " + std::to_string(port) +
                  " for the other workers: the port is in use; choose another");
  }
  ::close(fd);  // now nobody listens there

  Trainer rank1(c);
  WorkerGroupOptions o1;
  o1.rank = 1;
  o1.port = port;
  o1.token = kToken;
  o1.timeout_s = 1;
  rank1.joinWorkers(o1);
  try {
    rank1.run(sink);
    ADD_FAILURE() << "rank 1 joined nobody";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "rank 1 cannot reach rank 0 at 127.0.0.1:" + std::to_string(port) +
                  " within 1 s; start rank 0 first and check the address");
  }
}

TEST(DataParallel, RanksOnSeveralMachinesMeetOverTcpWithTheToken) {
  ExperimentConfig c = dataParallelConfig(2, OptimizerKind::kSgd, DType::kFloat64);
  c.epochs = 2;
  const std::vector<Rank> ranks = runRanks(sameConfig(c), 60, {}, Meeting::kTcp);
  for (int r = 0; r < 2; ++r) ASSERT_EQ(ranks[r].error, "") << "rank " << r;
  const ArmSummary& accum = armOf(ranks[0].summary, ArmKind::kAccum);
  ASSERT_EQ(accum.status, ArmStatus::kFinished) << accum.message;
  EXPECT_LE(accum.equivalence_rel_diff, 1e-12);
  EXPECT_EQ(ranks[1].summary.arms[0].weights_digest, accum.weights_digest);
}

TEST(DataParallel, ATcpRendezvousNeedsALongTokenBeforeItListens) {
  const ExperimentConfig c = dataParallelConfig(2, OptimizerKind::kSgd, DType::kFloat32);
  const std::string advice = kTokenAdvice;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"",
       "a run on several machines needs a shared token (16 characters or more) so that no "
       "stranger joins it: " +
           advice},
      {"fifteen chars!!",
       "the token has 15 characters; a run on several machines needs 16 or more "
       "(e.g. 32 random hex digits): " +
           advice}};
  for (const auto& [token, expected] : cases) {
    Trainer rank0(c);
    WorkerGroupOptions o;
    o.port = 0;
    o.token = token;
    o.timeout_s = 1;
    bool listened = false;
    o.on_listening = [&listened](int) { listened = true; };
    rank0.joinWorkers(o);
    RecordingSink sink;
    try {
      rank0.run(sink);
      ADD_FAILURE() << "rank 0 ran with the token '" << token << "'";
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()), expected);
    }
    EXPECT_FALSE(listened) << token;
  }
}

TEST(DataParallel, AWrongTokenIsRefusedOnBothSidesAtOnce) {
  const ExperimentConfig c = dataParallelConfig(2, OptimizerKind::kSgd, DType::kFloat32);
  const auto another_token = [](int rank, Trainer&, WorkerGroupOptions& o, RecordingSink&) {
    if (rank == 1) o.token = "another token, also long enough";
  };
  const double timeout_s = 20;
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<Rank> ranks = runRanks(sameConfig(c), timeout_s, another_token, Meeting::kTcp);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(took, timeout_s / 2);  // neither side waits for the timeout
  EXPECT_EQ(ranks[0].error,
            std::string("rank 1 presented a token that does not match rank 0's; ") + kTokenAdvice);
  const std::string& refused = ranks[1].error;
  EXPECT_EQ(refused.rfind("rank 1 was refused by the master at 127.0.0.1:", 0), 0u) << refused;
  const std::string tail = std::string(": its token does not match (") + kTokenAdvice + ")";
  ASSERT_GE(refused.size(), tail.size());
  EXPECT_EQ(refused.substr(refused.size() - tail.size()), tail);
  for (const Rank& r : ranks) EXPECT_EQ(r.error.find(kToken), std::string::npos);
}

TEST(DataParallel, RanksOnOneMachineMeetInAPrivateNewFolder) {
  const ExperimentConfig c = dataParallelConfig(2, OptimizerKind::kSgd, DType::kFloat32);
  TempFolder folder;
  ASSERT_FALSE(folder.path().empty());
  const auto rank0Error = [&c, &folder] {
    Trainer rank0(c);
    WorkerGroupOptions o;
    o.rendezvous_dir = folder.path();
    o.timeout_s = 1;
    rank0.joinWorkers(o);
    RecordingSink sink;
    try {
      rank0.run(sink);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  ASSERT_EQ(::chmod(folder.path().c_str(), 0755), 0);
  EXPECT_EQ(rank0Error(),
            "the rendezvous folder " + folder.path() +
                " must be a folder of this user that nobody else can open (mode 0700)");
  ASSERT_EQ(::chmod(folder.path().c_str(), 0700), 0);
  std::ofstream(folder.path() + "/store") << "an earlier run's keys";
  EXPECT_EQ(rank0Error(), "the rendezvous folder " + folder.path() +
                              " holds an earlier run's store; give every run a new folder");
}

TEST(DataParallel, WorkersNeedAGroupAndAnAccumArm) {
  ExperimentConfig c = dataParallelConfig(2, OptimizerKind::kSgd, DType::kFloat32);
  RecordingSink sink;
  EXPECT_THROW(Trainer(c).run(sink), InputError);
  c.arms = {ArmKind::kBigBatch};
  EXPECT_THROW(validateConfig(c), InputError);
}

TEST(WindowPlanShards, EveryMicroBatchGoesToExactlyOneWorker) {
  SampleStream stream(100, 7);
  // 100 samples, m = 8, K·N = 12: 96 samples in 12 micro-batches, then a short window.
  for (int64_t samples_left : {int64_t{100}, int64_t{4}}) {
    const WindowPlan plan = planWindow(stream, 8, 12, WindowPolicy::kFlushExact, samples_left);
    for (int workers : {2, 3, 5}) {
      std::vector<int64_t> seen;
      int64_t rows = 0;
      for (int r = 0; r < workers; ++r) {
        const WindowPlan share = shardOf(plan, r, workers);
        EXPECT_TRUE(share.shard);
        EXPECT_EQ(share.samples, plan.samples);
        EXPECT_EQ(share.window_batches, plan.micro_batches.size());
        for (const auto& mb : share.micro_batches) {
          rows += mb.size(0);
          for (int64_t i = 0; i < mb.size(0); ++i) seen.push_back(mb[i].item<int64_t>());
        }
      }
      EXPECT_EQ(rows, plan.samples);
      std::vector<int64_t> all;
      for (const auto& mb : plan.micro_batches) {
        for (int64_t i = 0; i < mb.size(0); ++i) all.push_back(mb[i].item<int64_t>());
      }
      std::sort(seen.begin(), seen.end());
      std::sort(all.begin(), all.end());
      EXPECT_EQ(seen, all);
    }
  }
}

}  // namespace
}  // namespace accumlab
