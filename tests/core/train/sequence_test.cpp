// SPDX-License-Identifier: GPL-3.0-or-later
// Text sequences of varying length: token-level normalisation makes accumulation exact,
// the mean of micro-batch means does not, and padding never changes a result.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <tuple>

#include "accumlab/input_error.h"
#include "accumlab/text_file.h"
#include "accumlab/trainer.h"
#include "data/text_reader.h"
#include "models/model.h"
#include "recording_sink.h"
#include "tolerances.h"
#include "train/grad_window.h"
#include "train/loss.h"
#include "train/pitfalls.h"
#include "train/text_sample.h"
#include "train/window_plan.h"

namespace accumlab {
namespace {

using testing::armOf;
using testing::kFloat64Tolerance;
using testing::RecordingSink;

// Lines of 1 to 8 words: 1 to about 50 bytes, so micro-batches hold very different token counts.
std::vector<std::string> wordLines(int count, uint32_t seed) {
  static const char* kWords[] = {"the",   "a",    "of",   "to",     "and",    "in", "is",
                                 "it",    "you",  "that", "water",  "number", "go", "people",
                                 "sound", "find", "over", "called", "first",  "day"};
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> words(1, 8), pick(0, 19);
  std::vector<std::string> lines;
  for (int i = 0; i < count; ++i) {
    std::string line;
    for (int w = words(rng); w > 0; --w)
      line += std::string(line.empty() ? "" : " ") + kWords[pick(rng)];
    lines.push_back(line);
  }
  return lines;
}

class TextFile {
 public:
  TextFile()
      : path_(std::filesystem::temp_directory_path() /
              ("accumlab-text-" + std::to_string(::getpid()) + ".txt")) {
    std::ofstream out(path_);
    for (const auto& line : wordLines(700, 5)) out << line << "\n";
  }
  ~TextFile() { std::filesystem::remove(path_); }
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

constexpr int64_t kSteps = 100;

/// model, optimizer, clipping.
using TextCase = std::tuple<std::string, OptimizerKind, bool>;

class TextAccumEqualsBigBatch : public ::testing::TestWithParam<TextCase> {};

TEST_P(TextAccumEqualsBigBatch, InFloat64After100Steps) {
  const auto& [model, opt, clip] = GetParam();
  TextFile file;
  ExperimentConfig c;
  c.data = "text:" + file.path();
  c.model = model;
  c.micro_batch = 4;
  c.accum = 4;
  c.arms = {ArmKind::kAccum, ArmKind::kBigBatch, ArmKind::kPitfallMeanOfMeans};
  c.optimizer.kind = opt;
  // Adam divides each gradient element by its own scale, so a rounding difference in an
  // element near zero becomes a step: at 1e-3 the transformer's arms end 2.4e-12 apart,
  // at 2e-3 8e-12; at 5e-4 within 1e-12 (the GRU at either).
  c.optimizer.lr = opt == OptimizerKind::kSgd ? 0.1 : 5e-4;
  c.optimizer.weight_decay = opt == OptimizerKind::kAdamW ? 0.05 : 0.0;
  c.optimizer.clip_norm = clip ? 0.5 : 0.0;
  c.dtype = DType::kFloat64;
  c.samples = kSteps * c.micro_batch * c.accum;  // 1600 samples: crosses an epoch end
  c.eval_every = c.samples;
  c.grad_check_every = 5;
  Trainer trainer(c);
  RecordingSink sink;
  const RunSummary s = trainer.run(sink);
  const ArmSummary& accum = armOf(s, ArmKind::kAccum);
  const ArmSummary& big = armOf(s, ArmKind::kBigBatch);
  const ArmSummary& wrong = armOf(s, ArmKind::kPitfallMeanOfMeans);
  ASSERT_EQ(accum.status, ArmStatus::kFinished) << accum.message;
  ASSERT_EQ(big.status, ArmStatus::kFinished) << big.message;
  ASSERT_EQ(accum.steps, kSteps);
  ASSERT_EQ(big.steps, kSteps);
  EXPECT_GE(accum.grad_equivalence_checks, kSteps / 5);
  EXPECT_LE(accum.grad_equivalence_rel_diff, kFloat64Tolerance);
  EXPECT_LE(accum.equivalence_rel_diff, kFloat64Tolerance);
  EXPECT_NEAR(accum.final_train_loss, big.final_train_loss, 1e-12);
  // Per-token means of micro-batches with different token counts: not the big batch.
  EXPECT_GT(wrong.grad_equivalence_mean_full, 1e-3);
  EXPECT_GT(std::abs(wrong.final_train_loss - big.final_train_loss), 1e-6);
  // Throughput in tokens beside sequences: lines of 1 to 8 words hold about 25 tokens each.
  EXPECT_GT(accum.tokens_per_s, 5 * accum.samples_per_s);
  // Every evaluation of every arm wrote a line; accum and big-batch, at the same weights and
  // from the same seed, wrote the same one.
  std::map<ArmKind, std::string> last;
  for (const EvalRecord& e : sink.evals) {
    EXPECT_FALSE(e.text_sample.empty() && e.samples_seen > 0) << toString(e.arm);
    last[e.arm] = e.text_sample;
  }
  EXPECT_EQ(last[ArmKind::kAccum], last[ArmKind::kBigBatch]);
}

std::string caseName(const ::testing::TestParamInfo<TextCase>& info) {
  const auto& [model, opt, clip] = info.param;
  std::string name = model == "charlm:16" ? "Gru" : "Transformer";
  name += toString(opt) + (clip ? "Clipped" : "");
  return name;
}

INSTANTIATE_TEST_SUITE_P(
    Engine, TextAccumEqualsBigBatch,
    ::testing::Values(TextCase{"charlm:16", OptimizerKind::kSgd, false},
                      TextCase{"charlm:16", OptimizerKind::kAdamW, true},
                      TextCase{"charlm-transformer", OptimizerKind::kSgd, true},
                      TextCase{"charlm-transformer", OptimizerKind::kAdamW, false}),
    caseName);

/// A text dataset of known sequences and a float64 model for the window-level checks.
struct TextWindow {
  explicit TextWindow(const std::string& model_spec,
                      std::vector<std::string> lines = {"a", "hello there", "xy", "abcdefghij",
                                                        "one two three four", "z"}) {
    ExperimentConfig c;
    c.val_fraction = 0;
    TextSequences t;
    t.sequences = std::move(lines);
    data = makeTextDataset(t, "known", c);
    model = makeModelFactory(model_spec, data.sample_shape, data.num_outputs, 3, true)->create();
    model->to(torch::kCPU, torch::kFloat64);
  }

  /// The gradient of the summed token losses of `rows` (one backward, nothing scaled).
  std::vector<torch::Tensor> summedGradient(const torch::Tensor& rows) {
    for (auto& p : model->parameters()) p.mutable_grad().reset();
    torch::Tensor out = model->forward(data.trainInputs(rows, torch::kFloat64, torch::kCPU));
    summedLoss(data, out, data.trainTargets(rows, torch::kFloat64, torch::kCPU)).backward();
    return grads();
  }

  std::vector<torch::Tensor> grads() {
    std::vector<torch::Tensor> g;
    for (auto& p : model->parameters()) g.push_back(p.grad().clone());
    return g;
  }

  Dataset data;
  std::unique_ptr<Model> model;
};

double largestDifference(const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b) {
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    worst = std::max(worst, (a[i] - b[i]).abs().max().item<double>());
  }
  return worst;
}

WindowPlan twoMicroBatches(const Dataset& data) {
  SampleStream stream(data.trainSize(), 1);
  return planWindow(stream, 3, 2, WindowPolicy::kStream, data.trainSize(),
                    [&data](const torch::Tensor& rows) { return data.trainWeight(rows); });
}

TEST(TextWindow, TokensNormaliseByTheWindowsTokensAndMeanOfMeansByEachMicroBatchs) {
  TextWindow t("charlm:8");
  const WindowPlan plan = twoMicroBatches(t.data);
  ASSERT_EQ(plan.micro_batches.size(), 2u);
  const double t1 = t.data.trainWeight(plan.micro_batches[0]);
  const double t2 = t.data.trainWeight(plan.micro_batches[1]);
  ASSERT_NE(t1, t2) << "the test needs micro-batches of different token counts";
  EXPECT_DOUBLE_EQ(plan.weight, t1 + t2);
  // By hand: S_i the summed-token gradient of micro-batch i.
  const auto s1 = t.summedGradient(plan.micro_batches[0]);
  const auto s2 = t.summedGradient(plan.micro_batches[1]);
  std::vector<torch::Tensor> exact, means;
  for (size_t i = 0; i < s1.size(); ++i) {
    exact.push_back((s1[i] + s2[i]) / (t1 + t2));
    means.push_back((s1[i] / t1 + s2[i] / t2) / 2.0);
  }
  GradWindow window(*t.model, t.data, torch::kCPU, torch::kFloat64);
  window.run(plan, false);
  EXPECT_LE(largestDifference(t.grads(), exact), 1e-12);
  WindowPlan wrong = plan;
  applyPitfall(ArmKind::kPitfallMeanOfMeans, 2, 0, wrong);
  window.run(wrong, false);
  EXPECT_LE(largestDifference(t.grads(), means), 1e-12);
  // And the two differ by (S1/T1 + S2/T2)/2 − (S1 + S2)/(T1 + T2), clearly above rounding.
  EXPECT_GT(largestDifference(exact, means), 1e-4);
  // The big batch: the window's rows as one batch, padded to the window's longest.
  WindowPlan big = plan;
  big.micro_batches = {torch::cat(plan.micro_batches)};
  big.weights = {plan.weight};
  big.loss_scales = {1.0 / plan.weight};
  window.run(big, false);
  EXPECT_LE(largestDifference(t.grads(), exact), 1e-12);
}

TEST(TextWindow, PaddingChangesNothing) {
  for (const char* spec : {"charlm:8", "charlm-transformer"}) {
    TextWindow t(spec);
    // Row of "xy" (4 stored bytes) alone: 3 positions; with "abcdefghij" beside it: 11.
    int64_t xy = -1, long_row = -1;
    for (int64_t i = 0; i < t.data.trainSize(); ++i) {
      const int64_t len = t.data.train_len[i].item<int64_t>();
      if (len == 4) xy = i;
      if (len == 12) long_row = i;
    }
    ASSERT_GE(xy, 0);
    ASSERT_GE(long_row, 0);
    const auto alone = t.summedGradient(torch::tensor({xy}, torch::kLong));
    // The same sequence padded to 11 positions: its own loss, the long row's left out.
    for (auto& p : t.model->parameters()) p.mutable_grad().reset();
    const torch::Tensor rows = torch::tensor({xy, long_row}, torch::kLong);
    torch::Tensor out = t.model->forward(t.data.trainInputs(rows, torch::kFloat64, torch::kCPU));
    torch::Tensor y = t.data.trainTargets(rows, torch::kFloat64, torch::kCPU);
    ASSERT_EQ(y.size(1), 11);
    summedLoss(t.data, out.slice(0, 0, 1), y.slice(0, 0, 1)).backward();
    EXPECT_LE(largestDifference(t.grads(), alone), 1e-13) << spec;
    // And its logits at its own positions are the same.
    torch::NoGradGuard no_grad;
    torch::Tensor short_out = t.model->forward(
        t.data.trainInputs(torch::tensor({xy}, torch::kLong), torch::kFloat64, torch::kCPU));
    EXPECT_LE((out[0].slice(0, 0, 3) - short_out[0]).abs().max().item<double>(), 1e-13) << spec;
  }
}

TEST(TextWindow, SequenceMeansWeighEverySequenceAlike) {
  TextWindow t("charlm:8");
  t.data.token_loss = TokenLoss::kSequences;
  const torch::Tensor rows = torch::arange(t.data.trainSize(), torch::kLong);
  torch::NoGradGuard no_grad;
  torch::Tensor out = t.model->forward(t.data.trainInputs(rows, torch::kFloat64, torch::kCPU));
  torch::Tensor y = t.data.trainTargets(rows, torch::kFloat64, torch::kCPU);
  const torch::Tensor per = sampleLosses(t.data, out, y);
  // Each sequence's loss is the mean over its own tokens.
  for (int64_t i = 0; i < rows.size(0); ++i) {
    torch::Tensor one_out =
        t.model->forward(t.data.trainInputs(rows.slice(0, i, i + 1), torch::kFloat64, torch::kCPU));
    torch::Tensor one_y =
        t.data.trainTargets(rows.slice(0, i, i + 1), torch::kFloat64, torch::kCPU);
    const double tokens = static_cast<double>(one_y.ne(kIgnoredTarget).sum().item<int64_t>());
    t.data.token_loss = TokenLoss::kTokens;
    const double summed = summedLoss(t.data, one_out, one_y).item<double>();
    t.data.token_loss = TokenLoss::kSequences;
    EXPECT_NEAR(per[i].item<double>(), summed / tokens, 1e-12);
  }
  EXPECT_NEAR(summedLoss(t.data, out, y).item<double>(), per.sum().item<double>(), 1e-12);
  EXPECT_DOUBLE_EQ(t.data.trainWeight(rows), static_cast<double>(rows.size(0)));
}

TEST(TextSample, IsTheSameLineForTheSameWeightsAndSeedAndLeavesTrainingAlone) {
  TextWindow a("charlm:8");
  TextWindow b("charlm:8");
  torch::manual_seed(99);
  const double before = torch::rand({1}).item<double>();
  torch::manual_seed(99);
  const std::string line = sampleTextLine(*a.model, torch::kCPU, 20, 7);
  // The global generator, which dropout would draw from, did not move.
  EXPECT_EQ(torch::rand({1}).item<double>(), before);
  EXPECT_EQ(sampleTextLine(*b.model, torch::kCPU, 20, 7), line);
  EXPECT_LE(line.size(), 20u * 3);  // 20 bytes at most, " / " for a line break
  EXPECT_EQ(firstNonTextByte(line), std::string::npos) << line;
  EXPECT_EQ(line.find('\n'), std::string::npos);
  // An untrained model writes noise: another seed, another line.
  EXPECT_NE(sampleTextLine(*a.model, torch::kCPU, 20, 8), line);
}

TEST(TextData, IsNamedByItsSpec) {
  ExperimentConfig c;
  EXPECT_FALSE(isTextData(c.data));
  for (const char* spec : {"fortunes", "text:notes.txt"}) EXPECT_TRUE(isTextData(spec));
  EXPECT_FALSE(isTextData("csv:text.csv"));
}

TEST(TextData, IsProbedWithItsLengthsInTheTheory) {
  // Under --token-loss tokens a batch's loss is Σ token losses / Σ tokens, whose variance
  // ratio is K corrected for the lengths (weightedProbeTheory); under sequences every
  // sequence weighs one and the theory is K itself.
  TextFile file;
  for (TokenLoss mode : {TokenLoss::kTokens, TokenLoss::kSequences}) {
    ExperimentConfig c;
    c.data = "text:" + file.path();
    c.model = "charlm:8";
    c.micro_batch = 4;
    c.accum = 4;
    c.arms = {ArmKind::kAccum};
    c.token_loss = mode;
    c.samples = 256;
    c.eval_every = 256;
    c.probe_every = 128;  // then twice the pool's forward samples (the whole small file)
    c.probe_repeats = 512;
    ASSERT_TRUE(probesVariance(c));
    Trainer trainer(c);
    RecordingSink sink;
    const RunSummary s = trainer.run(sink);
    ASSERT_EQ(sink.probes.size(), 1u) << toString(mode);
    for (const ProbeRecord& p : sink.probes) {
      EXPECT_GT(p.ci_high, p.ci_low);
      if (mode == TokenLoss::kSequences) {
        EXPECT_EQ(p.theory, 4.0);
      } else {
        // Lines of 1 to 8 words: the lengths vary, so the theory moves off K; at m = 4 the
        // correction is about a tenth (the theory itself is checked in variance_probe_test).
        EXPECT_NE(p.theory, 4.0);
        EXPECT_NEAR(p.theory, 4.0, 0.6);
      }
    }
    ASSERT_TRUE(s.variance_probe_pooled.has_value());
    EXPECT_EQ(s.variance_probe_pooled->theory, sink.probes.back().theory);
  }
}

TEST(TextModels, RefuseDataTheyCannotRead) {
  EXPECT_THROW(makeModelFactory("charlm", {2}, 3, 1, false), InputError);
  EXPECT_THROW(makeModelFactory("mlp", {20}, 256, 1, true), InputError);
  EXPECT_THROW(makeModelFactory("charlm:8,8", {20}, 256, 1, true), InputError);
  EXPECT_EQ(makeModelFactory("charlm", {20}, 256, 1, true)->create()->spec(), "charlm:64");
}

}  // namespace
}  // namespace accumlab
