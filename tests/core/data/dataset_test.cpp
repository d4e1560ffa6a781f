// SPDX-License-Identifier: GPL-3.0-or-later
// A micro-batch's rows (Dataset::trainInputs, trainTargets): gathered without dispatched ops
// on the CPU, the same bits as index_select and convertInputs.
#include "data/dataset.h"

#include <gtest/gtest.h>

#include <cstring>
#include <stdexcept>

namespace accumlab {
namespace {

bool sameBits(const torch::Tensor& a, const torch::Tensor& b) {
  return a.scalar_type() == b.scalar_type() && a.sizes() == b.sizes() &&
         std::memcmp(a.contiguous().data_ptr(), b.contiguous().data_ptr(), a.nbytes()) == 0;
}

Dataset images(torch::Tensor x, double scale, Task task) {
  Dataset data;
  data.name = "images";
  data.task = task;
  data.num_outputs = 3;
  data.scale = scale;
  data.sample_shape = {x.size(1), x.size(2)};
  const int64_t n = x.size(0);
  data.train_x = std::move(x);
  data.train_y =
      task == Task::kClassification ? torch::randint(10, {n}, torch::kLong) : torch::randn({n, 3});
  return data;
}

TEST(Dataset, GatheredRowsAreIndexSelectsBits) {
  torch::manual_seed(3);
  const torch::Tensor rows = torch::tensor({7, 0, 3, 3, 19}, torch::kLong);
  struct Form {
    torch::Tensor x;
    double scale;
  };
  const Form forms[] = {
      {torch::randint(256, {20, 4, 6}, torch::kByte), 1.0 / 255},  // Fashion-MNIST's form
      {torch::randint(256, {20, 4, 6}, torch::kByte), 1.0},
      {torch::randn({20, 4, 6}), 1.0},  // synthetic data
      {torch::randn({20, 4, 6}), 0.3},
      {torch::randn({20, 4, 6}, torch::kFloat64), 1.0 / 3},
  };
  for (const Form& form : forms) {
    for (const Task task : {Task::kClassification, Task::kRegression}) {
      for (const torch::Dtype dtype : {torch::kFloat32, torch::kFloat64}) {
        SCOPED_TRACE(std::string(form.x.dtype().name()) + " × " + std::to_string(form.scale) +
                     " as " + std::string(c10::toString(dtype)));
        const Dataset data = images(form.x, form.scale, task);
        const torch::Tensor x = data.trainInputs(rows, dtype, torch::kCPU);
        EXPECT_TRUE(sameBits(
            x, convertInputs(data.train_x.index_select(0, rows), form.scale, dtype, torch::kCPU)));
        const torch::Tensor y = data.trainTargets(rows, dtype, torch::kCPU);
        torch::Tensor expected = data.train_y.index_select(0, rows);
        if (task == Task::kRegression) expected = expected.to(dtype);
        EXPECT_TRUE(sameBits(y, expected));
      }
    }
  }
}

TEST(Dataset, GatherRefusesARowOutsideTheData) {
  const Dataset data = images(torch::zeros({4, 2, 2}), 1.0, Task::kClassification);
  EXPECT_THROW(data.trainInputs(torch::tensor({1, 4}, torch::kLong), torch::kFloat32, torch::kCPU),
               std::out_of_range);
  EXPECT_THROW(data.trainTargets(torch::tensor({-1}, torch::kLong), torch::kFloat32, torch::kCPU),
               std::out_of_range);
}

TEST(Dataset, NoRowsGatherToAnEmptyBatch) {
  const Dataset data = images(torch::ones({4, 2, 2}), 0.5, Task::kRegression);
  const torch::Tensor x =
      data.trainInputs(torch::zeros({0}, torch::kLong), torch::kFloat32, torch::kCPU);
  EXPECT_EQ(x.sizes(), (std::vector<int64_t>{0, 2, 2}));
}

}  // namespace
}  // namespace accumlab
