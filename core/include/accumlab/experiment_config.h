// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "accumlab/names.h"

namespace accumlab {

// Each enum's names follow it (kNames, accumlab/names.h): configs, the store and the command
// line write and read them, so they are an interface.

/// The arms of an experiment (docs/accumulation.md). The pitfall arms (docs/pitfalls.md) are
/// the wrong accumulation recipes people write: each trains with accum's m and K, from the
/// same weights on the same samples, and differs from accum in one mistake.
enum class ArmKind {
  kNoAccum,
  kAccum,
  kBigBatch,
  kPitfallSum,               ///< "pitfall:sum": K micro-batch mean gradients added, not averaged
  kPitfallLastOnly,          ///< "pitfall:last-only": zeroed inside the loop, the last counts
  kPitfallDoubleLast,        ///< "pitfall:double-last": the last micro-batch added twice
  kPitfallMeanOfMeans,       ///< "pitfall:mean-of-means": each micro-batch's mean ÷ K
  kPitfallClipEach,          ///< "pitfall:clip-each": each micro-batch's gradient clipped
  kPitfallNoZero,            ///< "pitfall:no-zero": gradients never zeroed between windows
  kPitfallSchedulePerMicro,  ///< "pitfall:schedule-per-micro": LR schedule per micro-batch
};
template <>
inline constexpr Names<ArmKind> kNames<ArmKind>{
    "arm",
    "no-accum accum big-batch pitfall:sum pitfall:last-only pitfall:double-last "
    "pitfall:mean-of-means pitfall:clip-each pitfall:no-zero pitfall:schedule-per-micro"};
enum class OptimizerKind { kSgd, kAdam, kAdamW };
template <>
inline constexpr Names<OptimizerKind> kNames<OptimizerKind>{"optimizer", "sgd adam adamw"};
enum class LrSchedule { kConstant, kStep, kCosine };
template <>
inline constexpr Names<LrSchedule> kNames<LrSchedule>{"LR schedule", "constant step cosine"};
/// How the LR of the larger-batch arms (accum, big-batch) is scaled from the base LR.
enum class LrScaling { kNone, kLinear, kSqrt };
template <>
inline constexpr Names<LrScaling> kNames<LrScaling>{"LR scaling", "none linear sqrt"};
/// What happens to the short last window at an epoch end (docs/accumulation.md).
enum class WindowPolicy { kStream, kFlushExact, kFlushDivideByK, kDrop };
template <>
inline constexpr Names<WindowPolicy> kNames<WindowPolicy>{
    "window policy", "stream flush-exact flush-divide-by-K drop"};
enum class DType { kFloat32, kFloat64 };
template <>
inline constexpr Names<DType> kNames<DType>{"dtype", "float32 float64"};
enum class Task { kAuto, kClassification, kRegression };
template <>
inline constexpr Names<Task> kNames<Task>{"task", "auto classification regression"};
/// What a text dataset holds as one sequence (docs/sequences.md).
enum class TextSplit { kLine, kParagraph };
template <>
inline constexpr Names<TextSplit> kNames<TextSplit>{"text split", "line paragraph"};
/// How a text batch's token losses make its loss (docs/sequences.md): `tokens` divides the sum
/// of every target token's loss by the window's target tokens (the big batch's per-token
/// mean); `sequences` takes each sequence's mean over its tokens, then the mean over
/// sequences: another objective, where a short sequence's tokens weigh more.
enum class TokenLoss { kTokens, kSequences };
template <>
inline constexpr Names<TokenLoss> kNames<TokenLoss>{"token loss", "tokens sequences"};

struct OptimizerConfig {
  OptimizerKind kind = OptimizerKind::kSgd;
  double lr = 0.02;           ///< base LR, used as is by the no-accum arm
  double momentum = 0.9;      ///< SGD only
  bool nesterov = false;      ///< SGD only
  double weight_decay = 0.0;  ///< L2 for SGD/Adam, decoupled for AdamW
  double beta1 = 0.9;         ///< Adam/AdamW
  double beta2 = 0.999;       ///< Adam/AdamW
  double eps = 1e-8;          ///< Adam/AdamW
  LrScaling scaling = LrScaling::kNone;
  LrSchedule schedule = LrSchedule::kConstant;
  int64_t warmup_samples = 0;      ///< linear warm-up length, in samples seen
  int64_t step_every_samples = 0;  ///< kStep: decay period in samples (0: one epoch)
  double step_gamma = 0.1;         ///< kStep: factor per period
  double clip_norm = 0.0;          ///< clip the accumulated gradient to this norm; 0 = off
};

/// Everything that defines an experiment; plain data, JSON round-trip below.
/// The most data-parallel workers one run may have.
inline constexpr int64_t kMaxWorkers = 64;

struct ExperimentConfig {
  std::string name;
  std::string data = "spirals";  ///< data SPEC (docs/data-and-models.md)
  std::string label;             ///< CSV label column (name or index)
  Task task = Task::kAuto;
  double val_fraction = 0.1;                ///< held-out share when the dataset has no test split
  TextSplit text_split = TextSplit::kLine;  ///< text data: a sequence per line or paragraph
  int64_t max_len = 256;  ///< text data: bytes kept of each sequence (longer ones are cut)
  TokenLoss token_loss = TokenLoss::kTokens;  ///< text data: how token losses are averaged
  int64_t synthetic_samples = 0;              ///< size of a synthetic dataset; 0 = its default
  std::string model = "mlp";                  ///< model SPEC (docs/data-and-models.md)
  int64_t micro_batch = 8;                    ///< m
  int64_t accum = 8;                          ///< K
  std::vector<ArmKind> arms = {ArmKind::kNoAccum, ArmKind::kAccum, ArmKind::kBigBatch};
  OptimizerConfig optimizer;
  WindowPolicy window_policy = WindowPolicy::kStream;
  DType dtype = DType::kFloat32;
  std::string device = "auto";  ///< auto, cpu, cuda, cuda:N
  uint64_t seed = 42;
  double epochs = 1.0;      ///< budget in epochs, used when samples == 0
  int64_t samples = 0;      ///< budget in samples seen per arm; overrides epochs
  int64_t eval_every = 0;   ///< evaluate every N samples seen; 0 = once per epoch
  bool noise_stats = true;  ///< gradient-noise estimators on/off
  /// Every N-th step of the accum arm, and at every irregular window (a short or epoch-end
  /// window, the first after a change of m or K or a resume), compare its accumulated
  /// gradient with the same window's gradient as one big batch at the same weights; 0 = off.
  int64_t grad_check_every = 10;
  int64_t variance_window = 50;  ///< W: rolling window of the per-update loss variance
  /// Fixed-weight variance probe of the accum arm: R micro-batches and R windows per probe,
  /// drawn from the per-sample losses of one forward pass over a pool (a BatchNorm model runs
  /// at most 64 of each forward); 0 = off.
  int64_t probe_repeats = 2048;
  /// Probe every N samples seen by the probed arm; 0 = at each evaluation. The default gives
  /// the default one-epoch run six probes (an evaluation per epoch would give one, at the end).
  int64_t probe_every = 10000;
  double noise_ema = 0.95;  ///< EMA factor of the trΣ and |G|² estimates
  /// Bytes of tensors one arm may hold at once while it trains a window; 0 = no limit. On CPU
  /// the counting allocator enforces it; on CUDA the device's own memory is the limit. An arm
  /// that exceeds it splits its micro-batches in halves and carries on with the same update
  /// (docs/measurements.md).
  int64_t memory_budget = 0;
  int threads = 0;  ///< CPU intra-op threads; 0 = the documented default
  /// Arms trained at once, each on its own thread, between the points that tie them (docs/
  /// performance.md): 1 (default) = one after another on the sample clock, 0 = one per core.
  int arm_threads = 1;
  /// N: data-parallel worker processes (docs/data-parallel.md). Each accum window takes m·K·N
  /// samples; every worker accumulates its K micro-batches alone, then one all-reduce of the
  /// gradient sums gives every worker the same update. 1 = one process.
  int64_t workers = 1;
  /// Keep each arm's final weights in the store when it finishes or is stopped, as a
  /// TorchScript model (`accumlab-cli export-model`, File → Save trained model…); off saves
  /// their bytes (docs/store.md).
  bool keep_weights = true;
};

/// Where Debian's dataset-fashion-mnist package installs the files.
inline constexpr char kFashionMnistDir[] = "/usr/share/datasets/fashion-mnist";
/// Where Debian's fortunes and fortunes-min packages install the quotes (`--data fortunes`).
inline constexpr char kFortunesDir[] = "/usr/share/games/fortunes";
/// The longest text sequence a run may keep, in bytes.
inline constexpr int64_t kMaxTextLength = 4096;

/// The micro-batches of one update of the accum arm: K on each of the N data-parallel
/// workers, K·N. What the LR scaling rules and the memory ratio of accum count as its K.
inline int64_t windowMicroBatches(const ExperimentConfig& config) {
  return config.accum * config.workers;
}
/// The samples of one update of the accum arm, its effective batch: m·K·N.
inline int64_t effectiveBatch(const ExperimentConfig& config) {
  return config.micro_batch * windowMicroBatches(config);
}

/// The default experiment (`--preset default`, and the app's first one): Fashion-MNIST with
/// an MLP when it is installed (at an LR where the noisy no-accum arm still learns, for five
/// epochs), else the built-in defaults on the spirals.
ExperimentConfig defaultExperiment();
/// The experiment of the preset `name` ("default"); throws InputError naming the presets.
ExperimentConfig presetExperiment(const std::string& name);

/// Parsers of the enums' names (their tables, kNames, are beside each enum above); throw
/// InputError naming the field and the accepted values.
inline ArmKind parseArmKind(const std::string& s) { return kNames<ArmKind>.parse(s); }
inline OptimizerKind parseOptimizerKind(const std::string& s) {
  return kNames<OptimizerKind>.parse(s);
}
inline LrSchedule parseLrSchedule(const std::string& s) { return kNames<LrSchedule>.parse(s); }
inline LrScaling parseLrScaling(const std::string& s) { return kNames<LrScaling>.parse(s); }
inline WindowPolicy parseWindowPolicy(const std::string& s) {
  return kNames<WindowPolicy>.parse(s);
}
inline DType parseDType(const std::string& s) { return kNames<DType>.parse(s); }
inline Task parseTask(const std::string& s) { return kNames<Task>.parse(s); }
inline TextSplit parseTextSplit(const std::string& s) { return kNames<TextSplit>.parse(s); }
inline TokenLoss parseTokenLoss(const std::string& s) { return kNames<TokenLoss>.parse(s); }

/// Returns the config as a JSON object text.
std::string configToJson(const ExperimentConfig& config, int indent = 2);
/// Parses a JSON object; missing keys keep their defaults. `source` names the file in errors.
ExperimentConfig configFromJson(const std::string& text, const std::string& source);
/// Reads and parses a JSON config file; throws InputError naming the file on any problem.
ExperimentConfig loadConfigFile(const std::string& path);
/// Throws InputError with a one-sentence message for the first invalid value.
void validateConfig(const ExperimentConfig& config);

/// True when the data SPEC names text (fortunes, text:FILE): sequences of byte tokens.
bool isTextData(const std::string& data_spec);
/// True when a run of `config` probes the loss variance at fixed weights: R ≥ 2.
bool probesVariance(const ExperimentConfig& config);

/// True for the pitfall arms.
bool isPitfall(ArmKind arm);
/// Why pitfall arm `arm` cannot run in experiment `config` ("it clips each micro-batch's
/// gradient to the clip norm, and the experiment has none; …"), or "" when it can.
std::string pitfallUnmet(ArmKind arm, const ExperimentConfig& config);
/// True for the arms that add K micro-batches into each update: accum and the pitfalls.
bool accumulates(ArmKind arm);
/// Every pitfall arm, in the order the app lists them.
const std::vector<ArmKind>& pitfallArms();

/// The micro-batch size and accumulation count of one arm under the given m and K.
int64_t armMicroBatch(ArmKind arm, int64_t m, int64_t k);
int64_t armAccum(ArmKind arm, int64_t m, int64_t k);

}  // namespace accumlab
