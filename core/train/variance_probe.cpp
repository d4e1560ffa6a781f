#include "train/variance_probe.h"

#include <random>
#include <stdexcept>

#include "accumlab/variance_ratio.h"

namespace accumlab {

namespace {

// Rows per forward pass when losses are per sample: large enough to amortise a call, small
// enough that a CNN's activations stay modest.
constexpr int64_t kChunk = 512;

std::vector<int64_t> drawRows(int64_t count, int64_t population, std::mt19937_64& rng) {
  std::uniform_int_distribution<int64_t> pick(0, population - 1);
  std::vector<int64_t> rows(static_cast<size_t>(count));
  for (int64_t& r : rows) r = pick(rng);
  return rows;
}

/// rows[begin, end) as an index tensor.
torch::Tensor rowSlice(const std::vector<int64_t>& rows, size_t begin, size_t end) {
  return torch::tensor(std::vector<int64_t>(rows.begin() + static_cast<std::ptrdiff_t>(begin),
                                            rows.begin() + static_cast<std::ptrdiff_t>(end)),
                       torch::kLong);
}

/// Per-sample losses (float64) of `rows`, as the training loss defines them: cross-entropy,
/// or the squared error summed over the targets.
torch::Tensor sampleLosses(Model& model, const Dataset& data, const torch::Tensor& rows,
                           const torch::Device& device, torch::Dtype dtype) {
  namespace F = torch::nn::functional;
  torch::Tensor out = model.forward(data.trainInputs(rows, dtype, device));
  torch::Tensor y = data.trainTargets(rows, dtype, device);
  torch::Tensor losses =
      data.task == Task::kClassification
          ? F::cross_entropy(out, y, F::CrossEntropyFuncOptions().reduction(torch::kNone))
          : F::mse_loss(out, y.view_as(out), F::MSELossFuncOptions().reduction(torch::kNone))
                .sum(1);
  return losses.to(torch::kCPU, torch::kFloat64);
}

/// Mean loss of each consecutive group of `group` rows, every group a batch of its own
/// (BatchNorm: the batch statistics are the group's).
std::vector<double> groupMeansByBatch(Model& model, const Dataset& data,
                                      const std::vector<int64_t>& rows, int64_t group,
                                      const torch::Device& device, torch::Dtype dtype) {
  std::vector<double> means;
  for (size_t begin = 0; begin < rows.size(); begin += static_cast<size_t>(group)) {
    torch::Tensor idx = rowSlice(rows, begin, begin + static_cast<size_t>(group));
    means.push_back(sampleLosses(model, data, idx, device, dtype).mean().item<double>());
  }
  return means;
}

/// Per-sample losses of all `rows`, computed kChunk at a time (the model treats samples
/// independently, so how they are batched does not change them).
std::vector<double> lossesBySample(Model& model, const Dataset& data,
                                   const std::vector<int64_t>& rows,
                                   const torch::Device& device, torch::Dtype dtype) {
  std::vector<double> losses;
  losses.reserve(rows.size());
  for (size_t begin = 0; begin < rows.size(); begin += kChunk) {
    const size_t end = std::min(rows.size(), begin + static_cast<size_t>(kChunk));
    torch::Tensor l = sampleLosses(model, data, rowSlice(rows, begin, end), device, dtype).contiguous();
    const double* p = l.data_ptr<double>();
    losses.insert(losses.end(), p, p + l.numel());
  }
  return losses;
}

/// Mean of each consecutive group of `group` values.
std::vector<double> groupMeans(const std::vector<double>& values, int64_t group) {
  std::vector<double> means;
  for (size_t first = 0; first < values.size(); first += static_cast<size_t>(group)) {
    double sum = 0;
    for (size_t i = first; i < first + static_cast<size_t>(group); ++i) sum += values[i];
    means.push_back(sum / static_cast<double>(group));
  }
  return means;
}

double sampleVariance(const std::vector<double>& v) {
  double mean = 0;
  for (double x : v) mean += x;
  mean /= static_cast<double>(v.size());
  double ss = 0;
  for (double x : v) ss += (x - mean) * (x - mean);
  return ss / static_cast<double>(v.size() - 1);
}

}  // namespace

double excessKurtosis(const std::vector<double>& values) {
  const size_t n = values.size();
  if (n < 4) return kNaN;
  double mean = 0;
  for (double x : values) mean += x;
  mean /= static_cast<double>(n);
  double m2 = 0, m4 = 0;
  for (double x : values) {
    const double d2 = (x - mean) * (x - mean);
    m2 += d2;
    m4 += d2 * d2;
  }
  m2 /= static_cast<double>(n);
  m4 /= static_cast<double>(n);
  return m2 > 0 ? m4 / (m2 * m2) - 3.0 : kNaN;
}

ProbeRecord probeVariance(Model& model, const Dataset& data, const ProbeRequest& request,
                          const torch::Device& device, torch::Dtype dtype) {
  const int64_t m = request.micro_batch, k = request.accum, r = request.repeats;
  if (m < 1 || k < 1 || r < 2) {
    throw std::invalid_argument("variance probe needs m ≥ 1, K ≥ 1 and at least 2 repeats");
  }
  ProbeRecord rec;
  rec.micro_batch = m;
  rec.accum = k;
  rec.repeats = r;
  rec.theory = static_cast<double>(k);
  rec.batch_dependent = model.batchDependent();

  std::mt19937_64 rng(request.seed);
  const std::vector<int64_t> micro_rows = drawRows(r * m, data.trainSize(), rng);
  const std::vector<int64_t> window_rows = drawRows(r * m * k, data.trainSize(), rng);

  torch::NoGradGuard no_grad;
  std::vector<double> micro, window;
  double kurtosis_micro = 0, kurtosis_window = 0;  // of the group means
  if (rec.batch_dependent) {
    // Batch statistics differ per group, so every group is its own forward; the running
    // statistics that forward updates are put back afterwards.
    std::vector<torch::Tensor> saved;
    for (const torch::Tensor& b : model.buffers()) saved.push_back(b.clone());
    micro = groupMeansByBatch(model, data, micro_rows, m, device, dtype);
    window = groupMeansByBatch(model, data, window_rows, m * k, device, dtype);
    const std::vector<torch::Tensor> buffers = model.buffers();
    for (size_t i = 0; i < buffers.size(); ++i) buffers[i].copy_(saved[i]);
    kurtosis_micro = excessKurtosis(micro);
    kurtosis_window = excessKurtosis(window);
  } else {
    std::vector<double> rows = lossesBySample(model, data, micro_rows, device, dtype);
    const std::vector<double> wrows = lossesBySample(model, data, window_rows, device, dtype);
    micro = groupMeans(rows, m);
    window = groupMeans(wrows, m * k);
    // A mean of n independent losses has excess kurtosis γ₂/n, where γ₂ is the per-sample
    // losses' own, estimated from all of them at once (thousands, not R).
    rows.insert(rows.end(), wrows.begin(), wrows.end());
    const double g2 = excessKurtosis(rows);
    kurtosis_micro = g2 / static_cast<double>(m);
    kurtosis_window = g2 / static_cast<double>(m * k);
  }
  rec.var_micro = sampleVariance(micro);
  rec.var_window = sampleVariance(window);
  const RatioInterval ci =
      varianceRatioInterval(rec.var_micro, varianceDof(r, kurtosis_micro), rec.var_window,
                            varianceDof(r, kurtosis_window));
  rec.ratio = ci.ratio;
  rec.ci_low = ci.low;
  rec.ci_high = ci.high;
  return rec;
}

}  // namespace accumlab
