// SPDX-License-Identifier: GPL-3.0-or-later
#include "data/synthetic.h"

#include <ATen/CPUGeneratorImpl.h>

#include <cmath>

namespace accumlab {
namespace {

constexpr double kLinregSigma = 0.5;  // label noise of `linreg`
constexpr int64_t kBlobClasses = 10;
constexpr double kBlobSpread = 1.5;  // distance scale between blob centres

at::Generator seededGenerator(uint64_t seed, uint64_t stream) {
  return at::make_generator<at::CPUGeneratorImpl>(seed * 0x9E3779B97F4A7C15ULL + stream);
}

}  // namespace

AnalyticNoise linregNoise(const LinregTruth& truth, const std::vector<double>& w, double b) {
  const double d = static_cast<double>(truth.w.size());
  double delta_sq = 0;
  for (size_t i = 0; i < truth.w.size(); ++i) {
    const double diff = w[i] - truth.w[i];
    delta_sq += diff * diff;
  }
  const double db = b - truth.b;
  const double s2 = truth.sigma * truth.sigma;
  AnalyticNoise out;
  out.g_sq = 4.0 * (delta_sq + db * db);
  out.trace_sigma = 4.0 * ((d + 2.0) * delta_sq + d * db * db + (d + 1.0) * s2);
  return out;
}

Dataset makeSpirals(int64_t samples, double val_fraction, uint64_t seed) {
  constexpr int64_t kClasses = 3;
  auto gen = seededGenerator(seed, 1);
  const auto f64 = torch::TensorOptions().dtype(torch::kFloat64);
  torch::Tensor label = torch::arange(samples, torch::kLong).remainder(kClasses);
  torch::Tensor t = torch::rand({samples}, gen, f64);  // position along the arm, 0..1
  torch::Tensor radius = t * 1.0 + 0.05;
  torch::Tensor angle = t * 3.0 * M_PI + label.to(torch::kFloat64) * (2.0 * M_PI / kClasses);
  angle = angle + torch::randn({samples}, gen, f64) * 0.15;
  torch::Tensor x = torch::stack({radius * torch::cos(angle), radius * torch::sin(angle)}, 1);
  Dataset ds;
  ds.name = "spirals";
  ds.task = Task::kClassification;
  ds.num_outputs = kClasses;
  ds.sample_shape = {2};
  ds.class_names = {"arm 0", "arm 1", "arm 2"};
  splitTrainVal(ds, x.to(torch::kFloat32), label, val_fraction, seed);
  return ds;
}

Dataset makeBlobs(int64_t samples, const std::vector<int64_t>& shape, double val_fraction,
                  uint64_t seed) {
  auto gen = seededGenerator(seed, 2);
  int64_t dim = 1;
  for (int64_t s : shape) dim *= s;
  const auto f32 = torch::TensorOptions().dtype(torch::kFloat32);
  // Centres scaled so that classes overlap a little whatever the dimension.
  torch::Tensor centres =
      torch::randn({kBlobClasses, dim}, gen, f32) * (kBlobSpread / std::sqrt(dim / 2.0 + 1.0));
  torch::Tensor label = torch::randint(kBlobClasses, {samples}, gen, torch::kLong);
  torch::Tensor x = centres.index_select(0, label) +
                    torch::randn({samples, dim}, gen, f32) * (1.0 / std::sqrt(dim / 2.0 + 1.0));
  std::vector<int64_t> full_shape = {samples};
  full_shape.insert(full_shape.end(), shape.begin(), shape.end());
  Dataset ds;
  ds.name = "blobs";
  ds.task = Task::kClassification;
  ds.num_outputs = kBlobClasses;
  ds.sample_shape = shape;
  for (int64_t c = 0; c < kBlobClasses; ++c) ds.class_names.push_back("blob " + std::to_string(c));
  splitTrainVal(ds, x.reshape(full_shape).contiguous(), label, val_fraction, seed);
  return ds;
}

Dataset makeLinreg(int64_t samples, int64_t dim, double val_fraction, uint64_t seed,
                   LinregTruth* truth) {
  auto gen = seededGenerator(seed, 3);
  const auto f64 = torch::TensorOptions().dtype(torch::kFloat64);
  torch::Tensor w = torch::randn({dim}, gen, f64);
  const double b = 0.5;
  torch::Tensor x = torch::randn({samples, dim}, gen, f64);
  torch::Tensor y = x.matmul(w) + b + torch::randn({samples}, gen, f64) * kLinregSigma;
  if (truth) {
    truth->w.assign(w.data_ptr<double>(), w.data_ptr<double>() + dim);
    truth->b = b;
    truth->sigma = kLinregSigma;
  }
  Dataset ds;
  ds.name = "linreg";
  ds.task = Task::kRegression;
  ds.num_outputs = 1;
  ds.sample_shape = {dim};
  // Stored in float64 so that float64 runs see the exact population; converted per batch.
  splitTrainVal(ds, x, y.unsqueeze(1), val_fraction, seed);
  return ds;
}

}  // namespace accumlab
