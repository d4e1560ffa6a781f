// SPDX-License-Identifier: GPL-3.0-or-later
// Why accum's and big-batch's trajectories parted, in words that name what the model has.
#include <gtest/gtest.h>

#include "accumlab/records.h"

namespace accumlab {
namespace {

std::string causeFor(const std::string& model, OptimizerKind optimizer) {
  ExperimentConfig config;
  config.model = model;
  config.optimizer.kind = optimizer;
  return partingCause(config);
}

bool says(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(PartingCause, BlamesAReluKinkOnlyWhereTheModelHasReLUs) {
  for (const std::string model : {"mlp", "mlp:256,128", "cnn"}) {
    EXPECT_TRUE(says(causeFor(model, OptimizerKind::kSgd), "kink (a ReLU's 0")) << model;
  }
  EXPECT_TRUE(says(causeFor("cnn", OptimizerKind::kSgd), "max-pool"));
  // A GRU has no ReLU: its recurrence and the optimizer amplify the rounding.
  const std::string gru = causeFor("charlm", OptimizerKind::kAdam);
  EXPECT_FALSE(says(gru, "ReLU")) << gru;
  EXPECT_TRUE(says(gru, "recurrence")) << gru;
  EXPECT_TRUE(says(gru, "Adam, which divides each gradient by its running scale")) << gru;
  for (const std::string model : {"charlm:128", "charlm-transformer", "logreg"}) {
    const std::string cause = causeFor(model, OptimizerKind::kSgd);
    EXPECT_FALSE(says(cause, "ReLU")) << model << ": " << cause;
    EXPECT_TRUE(says(cause, "no kink")) << model << ": " << cause;
  }
  // A TorchScript model may or may not have one: it is said as a possibility.
  EXPECT_TRUE(says(causeFor("torchscript:m.pt", OptimizerKind::kAdamW), "if the model has one"));
}

}  // namespace
}  // namespace accumlab
