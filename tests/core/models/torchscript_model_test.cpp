// SPDX-License-Identifier: GPL-3.0-or-later
// TorchScript models written by Python at test time: loading, training through the trainer,
// accum ≡ big-batch, and every kind of unusable file as one clear InputError.
#include "models/torchscript_model.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <memory>

#include "../data/temp_files.h"
#include "accumlab/input_error.h"
#include "accumlab/torchscript_check.h"
#include "accumlab/trainer.h"
#include "input_error_message.h"

namespace accumlab {
namespace {

constexpr const char* kPython = "/usr/bin/python3";
// Same tolerance as the built-in models' equivalence test (float32, 100 steps).
constexpr double kEquivalenceTolerance = 1e-5;

// What a user would write: small scripted models, saved with torch.jit.script(...).save().
constexpr const char* kGenerator = R"PY(
import sys, torch, torch.nn as nn
out = sys.argv[1]
torch.manual_seed(0)

class Mlp(nn.Module):
    def __init__(self, outputs: int = 10):
        super().__init__()
        self.net = nn.Sequential(nn.Flatten(), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, outputs))
    def forward(self, x):
        return self.net(x)

class CnnBn(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(),
                                      nn.MaxPool2d(2))
        self.head = nn.Linear(4 * 6 * 6, 10)
    def forward(self, x):
        return self.head(self.features(x).flatten(1))

class NoForward(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(64, 10)
    @torch.jit.export
    def predict(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(x)

class Pair(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(64, 10)
    def forward(self, x: torch.Tensor):
        return self.fc(x), x

class MlpDropout(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Flatten(), nn.Linear(64, 32), nn.ReLU(), nn.Dropout(0.2),
                                 nn.Linear(32, 10))
    def forward(self, x):
        return self.net(x)

class NoisyInput(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(64, 10)
    def forward(self, x):
        if self.training:
            x = x + 0.1 * torch.randn_like(x)
        return self.fc(x)

class CharLm(nn.Module):
    def __init__(self, vocab: int = 256, last_only: bool = False):
        super().__init__()
        self.last_only = last_only
        self.embed = nn.Embedding(256, 8)
        self.gru = nn.GRU(8, 8, batch_first=True)
        self.out = nn.Linear(8, vocab)
    def forward(self, x):
        h, _ = self.gru(self.embed(x))
        if self.last_only:
            h = h[:, -1]
        return self.out(h)

mlp = Mlp()
torch.jit.script(CharLm()).save(out + "/charlm.pt")
torch.jit.script(CharLm(vocab=10)).save(out + "/charlm_ten.pt")
torch.jit.script(CharLm(last_only=True)).save(out + "/charlm_last.pt")
with open(out + "/lines.txt", "w") as f:
    for i in range(400):
        f.write(" ".join("abcdefgh"[(i + w) % 8] * (1 + w % 3) for w in range(1 + i % 9)) + "\n")
torch.jit.script(MlpDropout()).save(out + "/dropout.pt")
torch.jit.script(NoisyInput()).save(out + "/noisy_input.pt")
torch.jit.script(mlp).save(out + "/mlp.pt")
probe = torch.arange(64, dtype=torch.float32).reshape(1, 64) / 64
with open(out + "/mlp_probe.txt", "w") as f:
    f.write(" ".join(repr(v) for v in mlp(probe)[0].tolist()))
torch.jit.script(CnnBn()).save(out + "/cnn_bn.pt")
torch.jit.script(Mlp(outputs=5)).save(out + "/five_outputs.pt")
torch.jit.script(NoForward()).save(out + "/no_forward.pt")
torch.jit.script(Pair()).save(out + "/pair.pt")
torch.save(mlp.state_dict(), out + "/state_dict.pt")
with open(out + "/text.pt", "w") as f:
    f.write("not a model\n")
)PY";

using testing::messageOf;

// The sample each file's check passes through its forward: the CNN takes 1x12x12 images,
// every other model 64 features.
ModelSample sampleOf(const std::string& file) {
  return file == "cnn_bn.pt" ? ModelSample{{1, 12, 12}, false} : ModelSample{{64}, false};
}

struct LossLog : MetricsSink {
  void onStep(const StepRecord& r) override { losses[r.arm].push_back(r.loss); }
  std::map<ArmKind, std::vector<double>> losses;
};

double mean(const std::vector<double>& v, size_t from, size_t to) {
  double s = 0;
  for (size_t i = from; i < to; ++i) s += v[i];
  return s / static_cast<double>(to - from);
}

class TorchScriptModelTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = std::make_unique<testing::TempDir>();
    testing::writeText(*dir_ / "gen.py", kGenerator);
    const std::string cmd = std::string(kPython) + " " + (*dir_ / "gen.py") + " " + dir_->path() +
                            " > " + (*dir_ / "gen.log") + " 2>&1";
    generated_ = std::system(cmd.c_str()) == 0;
  }
  static void TearDownTestSuite() { dir_.reset(); }

  void SetUp() override {
    // Every load is checked in the engine's child first; this binary has none beside it.
    setModelCheckProgram(ACCUMLAB_ENGINE);
    const std::string probe = std::string(kPython) + " -c 'import torch' > /dev/null 2>&1";
    if (!generated_ && std::system(probe.c_str()) != 0) {
      GTEST_SKIP() << kPython << " cannot import torch (Debian package python3-torch)";
    }
    ASSERT_TRUE(generated_) << "the Python generator failed; see " << (*dir_ / "gen.log");
  }

  static std::string file(const std::string& name) { return *dir_ / name; }
  static std::string spec(const std::string& name) { return "torchscript:" + file(name); }

  static ExperimentConfig config(const std::string& model, const std::string& data) {
    ExperimentConfig c;
    c.data = data;
    c.synthetic_samples = 3000;
    c.model = spec(model);
    c.device = "cpu";
    c.micro_batch = 16;
    c.accum = 8;
    return c;
  }

  static std::unique_ptr<testing::TempDir> dir_;
  static bool generated_;
};

std::unique_ptr<testing::TempDir> TorchScriptModelTest::dir_;
bool TorchScriptModelTest::generated_ = false;

TEST_F(TorchScriptModelTest, ForwardMatchesPythonAndReplicasAreIndependent) {
  auto factory = makeTorchScriptFactory(spec("mlp.pt"), sampleOf("mlp.pt"));
  auto a = factory->create();
  auto b = factory->create();
  EXPECT_EQ(a->parameterCount(), 64 * 32 + 32 + 32 * 10 + 10);
  EXPECT_FALSE(a->batchDependent());
  a->setTraining(false);
  torch::Tensor out = a->forward(torch::arange(64, torch::kFloat32).reshape({1, 64}) / 64);
  std::ifstream probe(file("mlp_probe.txt"));
  for (int64_t i = 0; i < 10; ++i) {
    double want = 0;
    probe >> want;
    EXPECT_NEAR(out[0][i].item<double>(), want, 1e-6) << "logit " << i;
  }
  {
    torch::NoGradGuard no_grad;
    a->parameters()[0].add_(1.0);
  }
  EXPECT_GT((a->parameters()[0] - b->parameters()[0]).abs().min().item<float>(), 0.5f);
  for (const auto& p : a->parameters()) EXPECT_TRUE(p.requires_grad());
}

TEST_F(TorchScriptModelTest, BatchNormModelSwitchesTrainAndEvalAndDtype) {
  auto model = makeTorchScriptFactory(spec("cnn_bn.pt"), sampleOf("cnn_bn.pt"))->create();
  EXPECT_TRUE(model->batchDependent());
  ASSERT_EQ(model->buffers().size(), 3u);  // running_mean, running_var, num_batches_tracked
  torch::Tensor x = torch::randn({8, 1, 12, 12});
  model->setTraining(false);
  model->forward(x);
  EXPECT_EQ(model->buffers()[0].abs().sum().item<float>(), 0.0f) << "eval mode updated statistics";
  model->setTraining(true);
  model->forward(x);
  EXPECT_GT(model->buffers()[0].abs().sum().item<float>(), 0.0f) << "train mode kept statistics";

  model->to(torch::kCPU, torch::kFloat64);
  EXPECT_EQ(model->parameters()[0].scalar_type(), torch::kFloat64);
  EXPECT_EQ(model->buffers()[2].scalar_type(), torch::kLong);
  EXPECT_EQ(model->forward(x.to(torch::kFloat64)).scalar_type(), torch::kFloat64);
}

TEST_F(TorchScriptModelTest, SavedModuleLoadsBackWithTrainedWeights) {
  auto model = makeTorchScriptFactory(spec("mlp.pt"), sampleOf("mlp.pt"))->create();
  {
    torch::NoGradGuard no_grad;
    model->parameters()[1].fill_(0.25);
  }
  model->save(file("saved.pt"));
  auto reloaded = makeTorchScriptFactory(spec("saved.pt"), sampleOf("saved.pt"))->create();
  ASSERT_EQ(reloaded->parameters().size(), model->parameters().size());
  for (size_t i = 0; i < model->parameters().size(); ++i) {
    EXPECT_TRUE(reloaded->parameters()[i].equal(model->parameters()[i])) << "parameter " << i;
  }
}

TEST_F(TorchScriptModelTest, MlpTrainsAndAccumEqualsBigBatch) {
  ExperimentConfig c = config("mlp.pt", "blobs:64");
  c.arms = {ArmKind::kAccum, ArmKind::kBigBatch};
  c.samples = 100 * 16 * 8;
  c.eval_every = c.samples;
  LossLog sink;
  const RunSummary s = Trainer(c).run(sink);
  ASSERT_EQ(s.arms.size(), 2u);
  for (const auto& arm : s.arms) {
    ASSERT_EQ(arm.status, ArmStatus::kFinished) << arm.message;
    EXPECT_EQ(arm.steps, 100);
  }
  EXPECT_LE(s.arms[0].equivalence_rel_diff, kEquivalenceTolerance);
  const auto& losses = sink.losses[ArmKind::kAccum];
  EXPECT_LT(mean(losses, 90, 100), 0.5 * mean(losses, 0, 10));
}

TEST_F(TorchScriptModelTest, BatchNormCnnTrains) {
  ExperimentConfig c = config("cnn_bn.pt", "blobs:1x12x12");
  c.arms = {ArmKind::kNoAccum, ArmKind::kAccum};
  c.samples = 2400;
  LossLog sink;
  const RunSummary s = Trainer(c).run(sink);
  for (const auto& arm : s.arms) ASSERT_EQ(arm.status, ArmStatus::kFinished) << arm.message;
  const auto& losses = sink.losses[ArmKind::kNoAccum];
  ASSERT_EQ(losses.size(), 150u);
  EXPECT_LT(mean(losses, 140, 150), 0.5 * mean(losses, 0, 10));
  EXPECT_GT(s.arms[0].val_accuracy, 0.5);
}

struct StepLog : MetricsSink {
  void onStep(const StepRecord& r) override { steps.push_back(r); }
  void onEvent(const EventRecord& e) override { events.push_back(e); }
  std::vector<StepRecord> of(ArmKind arm) const {
    std::vector<StepRecord> out;
    for (const auto& s : steps) {
      if (s.arm == arm) out.push_back(s);
    }
    return out;
  }
  std::vector<StepRecord> steps;
  std::vector<EventRecord> events;
};

/// True when two runs' records of one arm are equal to the bit.
bool identical(const std::vector<StepRecord>& a, const std::vector<StepRecord>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].loss != b[i].loss || a[i].grad_norm != b[i].grad_norm) return false;
  }
  return true;
}

TEST_F(TorchScriptModelTest, RandomLayersAreFlaggedStochastic) {
  EXPECT_TRUE(
      makeTorchScriptFactory(spec("dropout.pt"), sampleOf("dropout.pt"))->create()->stochastic());
  // No Dropout module: found in the forward graph (randn_like).
  EXPECT_TRUE(makeTorchScriptFactory(spec("noisy_input.pt"), sampleOf("noisy_input.pt"))
                  ->create()
                  ->stochastic());
  EXPECT_FALSE(makeTorchScriptFactory(spec("mlp.pt"), sampleOf("mlp.pt"))->create()->stochastic());
  EXPECT_FALSE(
      makeTorchScriptFactory(spec("cnn_bn.pt"), sampleOf("cnn_bn.pt"))->create()->stochastic());
}

TEST_F(TorchScriptModelTest, DropoutRunsAreReproducibleFromTheSeed) {
  ExperimentConfig c = config("dropout.pt", "blobs:64");
  c.dtype = DType::kFloat64;
  c.samples = 60 * 16 * 8;
  c.eval_every = c.samples;
  auto run = [](const ExperimentConfig& cfg) {
    StepLog log;
    const RunSummary s = Trainer(cfg).run(log);
    for (const auto& arm : s.arms) EXPECT_TRUE(arm.stochastic) << toString(arm.arm);
    return log;
  };
  const StepLog a = run(c), b = run(c);
  for (ArmKind arm : {ArmKind::kNoAccum, ArmKind::kAccum, ArmKind::kBigBatch}) {
    EXPECT_TRUE(identical(a.of(arm), b.of(arm))) << toString(arm) << " is not reproducible";
  }
  bool said = false;
  for (const auto& e : a.events)
    said |= e.kind == EventKind::kModel && e.message.find("random masks") != std::string::npos;
  EXPECT_TRUE(said) << "the run does not say that the model is stochastic";

  // No arm's random draws depend on another's: accum is the same without no-accum beside it.
  ExperimentConfig pair = c;
  pair.arms = {ArmKind::kAccum, ArmKind::kBigBatch};
  EXPECT_TRUE(identical(run(pair).of(ArmKind::kAccum), a.of(ArmKind::kAccum)));

  ExperimentConfig other = c;
  other.seed = c.seed + 1;
  EXPECT_FALSE(identical(run(other).of(ArmKind::kAccum), a.of(ArmKind::kAccum)));
}

TEST_F(TorchScriptModelTest, UnusableFilesAreInputErrors) {
  EXPECT_NE(messageOf([] {
              makeTorchScriptFactory(spec("state_dict.pt"), sampleOf("state_dict.pt"));
            }).find("state_dict.pt is not a TorchScript archive"),
            std::string::npos);
  EXPECT_NE(messageOf([] {
              makeTorchScriptFactory(spec("text.pt"), sampleOf("text.pt"));
            }).find("text.pt is not a TorchScript archive"),
            std::string::npos);
  EXPECT_NE(messageOf([] {
              makeTorchScriptFactory(spec("no_forward.pt"), sampleOf("no_forward.pt"));
            }).find("no_forward.pt has no forward method"),
            std::string::npos);
  EXPECT_NE(messageOf([] {
              makeTorchScriptFactory(spec("missing.pt"), sampleOf("missing.pt"));
            }).find("missing.pt does not exist"),
            std::string::npos);
}

TEST_F(TorchScriptModelTest, ShapeMismatchesNameModelDatasetAndShapes) {
  LossLog sink;
  ExperimentConfig c = config("five_outputs.pt", "blobs:64");
  c.samples = 64;
  const std::string outputs = messageOf([&] { Trainer(c).run(sink); });
  EXPECT_NE(outputs.find("model '" + spec("five_outputs.pt") + "' outputs [1x5] per sample but " +
                         "dataset 'blobs' needs [1x10]"),
            std::string::npos)
      << outputs;

  c = config("mlp.pt", "blobs:32");
  c.samples = 64;
  const std::string inputs = messageOf([&] { Trainer(c).run(sink); });
  EXPECT_NE(inputs.find("cannot take samples of shape [32] from dataset 'blobs'"),
            std::string::npos)
      << inputs;
  EXPECT_NE(inputs.find("1x32 and 64x32"), std::string::npos) << inputs;
  EXPECT_EQ(inputs.find('\n'), std::string::npos) << inputs;

  c = config("pair.pt", "blobs:64");
  c.samples = 64;
  const std::string pair = messageOf([&] { Trainer(c).run(sink); });
  EXPECT_NE(pair.find("returns a Tuple from forward"), std::string::npos) << pair;
}

TEST_F(TorchScriptModelTest, SequenceModelTrainsTextAndWrongShapesAreNamed) {
  // A scripted GRU over bytes ([B, T] → [B, T, 256]) trains text like the built-in charlm.
  ExperimentConfig c = config("charlm.pt", "text:" + file("lines.txt"));
  c.micro_batch = 4;
  c.accum = 4;
  c.arms = {ArmKind::kAccum, ArmKind::kBigBatch};
  c.samples = 20 * 16;
  c.eval_every = c.samples;
  c.dtype = DType::kFloat64;
  LossLog sink;
  const RunSummary s = Trainer(c).run(sink);
  ASSERT_EQ(s.arms.size(), 2u);
  for (const auto& arm : s.arms) ASSERT_EQ(arm.status, ArmStatus::kFinished) << arm.message;
  EXPECT_LE(s.arms[0].grad_equivalence_rel_diff, 1e-12);
  EXPECT_LE(s.arms[0].equivalence_rel_diff, 1e-12);

  // A logit per position but 10 byte values, and the last position's logits alone.
  c.samples = 16;
  for (const char* wrong : {"charlm_ten.pt", "charlm_last.pt"}) {
    c.model = spec(wrong);
    const std::string message = messageOf([&] { Trainer(c).run(sink); });
    EXPECT_NE(message.find("model '" + spec(wrong) + "' outputs ["), std::string::npos) << message;
    EXPECT_NE(message.find("but text data needs [1x"), std::string::npos) << message;
    EXPECT_NE(message.find("x256] (a logit per byte value at every position)"), std::string::npos)
        << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
  // An image model on text, and a sequence model on images.
  c.model = spec("mlp.pt");
  EXPECT_NE(messageOf([&] { Trainer(c).run(sink); }), "(no InputError)");
  c = config("charlm.pt", "blobs:64");
  c.samples = 16;
  EXPECT_NE(messageOf([&] { Trainer(c).run(sink); }), "(no InputError)");
}

}  // namespace
}  // namespace accumlab
