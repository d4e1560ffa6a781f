// SPDX-License-Identifier: GPL-3.0-or-later
// The final weights a run keeps (core/train/kept_weights.cpp): every finished arm hands the sink
// a TorchScript archive holding its final weights to the bit, and none when the run says no.
#include "train/kept_weights.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <sstream>

#include <torch/script.h>

#include "accumlab/trainer.h"
#include "recording_sink.h"

namespace accumlab {
namespace {

/// Keeps the weights each arm hands over, besides every record.
struct WeightsSink : testing::RecordingSink {
  void onArmWeights(const ArmWeights& w) override { weights.push_back(w); }
  std::vector<ArmWeights> weights;
};

/// FNV-1a over the parameters' bytes, as ArmSummary::weights_digest is made.
std::string digestOf(const torch::jit::Module& m) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (const torch::Tensor& p : m.parameters()) {
    const torch::Tensor t = p.detach().contiguous();
    const auto* bytes = static_cast<const unsigned char*>(t.data_ptr());
    for (size_t i = 0; i < static_cast<size_t>(t.numel()) * t.element_size(); ++i) {
      h = (h ^ bytes[i]) * 0x100000001b3ULL;
    }
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

ExperimentConfig keptConfig() {
  ExperimentConfig c;
  c.data = "blobs";
  c.synthetic_samples = 1000;
  c.model = "mlp:16";
  c.micro_batch = 8;
  c.accum = 4;
  c.samples = 960;
  c.device = "cpu";
  return c;
}

TEST(KeptWeights, EveryFinishedArmHandsOverItsFinalWeightsAsTorchScript) {
  Trainer trainer(keptConfig());
  WeightsSink sink;
  const RunSummary summary = trainer.run(sink);
  ASSERT_EQ(sink.weights.size(), summary.arms.size());
  for (const ArmWeights& w : sink.weights) {
    SCOPED_TRACE(toString(w.arm));
    EXPECT_EQ(w.format, "torchscript");
    std::istringstream in(w.data);
    const torch::jit::Module m = torch::jit::load(in);
    EXPECT_EQ(digestOf(m), testing::armOf(summary, w.arm).weights_digest)
        << "the arm's final weights, to the bit";
  }
}

TEST(KeptWeights, ARunWithKeepWeightsOffKeepsNone) {
  ExperimentConfig c = keptConfig();
  c.keep_weights = false;
  Trainer trainer(c);
  WeightsSink sink;
  trainer.run(sink);
  EXPECT_TRUE(sink.weights.empty());
}

TEST(KeptWeights, OnlyFinishedAndStoppedArmsAreModels) {
  EXPECT_TRUE(keepsWeights(ArmStatus::kFinished));
  EXPECT_TRUE(keepsWeights(ArmStatus::kStopped));
  EXPECT_FALSE(keepsWeights(ArmStatus::kDiverged));
  EXPECT_FALSE(keepsWeights(ArmStatus::kFailed));
}

}  // namespace
}  // namespace accumlab
