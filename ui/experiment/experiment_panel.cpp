// SPDX-License-Identifier: GPL-3.0-or-later
#include "experiment/experiment_panel.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <array>

#include "accumlab/device.h"
#include "accumlab/format_bytes.h"
#include "accumlab/input_error.h"
#include "accumlab/memory_model.h"
#include "accumlab/training_rules.h"
#include "experiment/batch_slider.h"
#include "experiment/enum_combo.h"
#include "experiment/memory_estimator.h"
#include "experiment/optimizer_form.h"
#include "experiment/option_tips.h"
#include "experiment/pitfall_picker.h"
#include "experiment/source_pickers.h"
#include "plots/arm_style.h"
#include "widgets/named.h"

namespace accumlab::ui {

namespace {

/// The largest m and K the sliders offer.
constexpr int64_t kMaxMicroBatch = 1024;
constexpr int64_t kMaxAccum = 256;
/// The arms of the comparison, a check box each; the pitfall arms are the PitfallPicker's.
constexpr std::array kComparedArms = {ArmKind::kNoAccum, ArmKind::kAccum, ArmKind::kBigBatch};
/// Quiet time after an edit before the tensor memory of a new model or dataset is probed.
constexpr int kMemoryProbeDelayMs = 400;

}  // namespace

ExperimentPanel::ExperimentPanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 6, 6, 6);
  lesson_note_ = new QLabel(tr("A lesson is training its own experiment. Your settings below "
                               "are kept as they are for after the lesson."),
                            this);
  lesson_note_->setWordWrap(true);
  lesson_note_->setHidden(true);
  layout->addWidget(lesson_note_);
  sources_ = new SourcePickers(this);
  connect(sources_, &SourcePickers::edited, this, &ExperimentPanel::configEdited);
  connect(sources_, &SourcePickers::pathOpened, this, &ExperimentPanel::pathOpened);
  connect(sources_, &SourcePickers::openFailed, this, &ExperimentPanel::openFailed);
  optimizer_ = new OptimizerForm(this);
  connect(optimizer_, &OptimizerForm::edited, this, [this] {
    updateDerivedLabels();
    pitfalls_->offerFor(config());  // clip-each needs a clip norm, schedule-per-micro a schedule
    emit configEdited();
  });
  groups_ = {sources_, buildBatchGroup(), optimizer_, buildTrainingGroup()};
  for (QWidget* group : groups_) layout->addWidget(group);
  layout->addStretch(1);
  setConfig(ExperimentConfig{});
}

QWidget* ExperimentPanel::buildBatchGroup() {
  auto* box = new QGroupBox(tr("Batching"), this);
  auto* form = new QFormLayout(box);
  micro_slider_ =
      named(new BatchSlider(BatchSlider::Scale::kLogarithmic, 1, kMaxMicroBatch, box), "microBatch",
            tr("m: samples per forward/backward pass (memory scales with m). During a run a change "
               "applies at the next window."));
  accum_slider_ = named(new BatchSlider(BatchSlider::Scale::kLinear, 1, kMaxAccum, box), "accum",
                        tr("K: micro-batches whose gradients are added up before one optimizer "
                           "step. During a run a change applies at the next window."));
  effective_label_ = new QLabel(box);
  memory_label_ = named(new QLabel(box), "memoryEstimate");
  memory_label_->setWordWrap(true);
  memory_tip_ =
      tr("Peak tensor memory of one update, predicted from short probes of this model and "
         "data (updates with m = 8 and m = 32, fitted as fixed + per sample · m). "
         "Counts the weights, gradients, optimizer state, the batch and the activations; not "
         "the dataset, nor the caches of BLAS and oneDNN (they are not tensors).");
  memory_label_->setToolTip(memory_tip_);
  form->addRow(tr("Micro-batch m"), micro_slider_);
  form->addRow(tr("Accumulate K"), accum_slider_);
  form->addRow(QString(), effective_label_);
  form->addRow(QString(), memory_label_);
  budget_edit_ =
      named(new QLineEdit(box), "memoryBudget",
            tr("Tensor memory an arm may hold at once (KiB, MiB, GiB, KB, MB, GB or bytes). Fit "
               "keeps m·K and picks the largest m that fits. On the CPU the budget is enforced: a "
               "micro-batch that does not fit is split in halves and the update stays the same."));
  budget_edit_->setPlaceholderText(tr("e.g. 200MiB"));
  auto* fit = new QPushButton(tr("Fit"), box);
  fit->setObjectName("fitBudget");
  fit->setToolTip(
      tr("Set m and K so that an update's predicted tensors fit the budget, "
         "keeping the effective batch m·K"));
  auto* budget_row = new QHBoxLayout;
  budget_row->addWidget(budget_edit_, 1);
  budget_row->addWidget(fit);
  form->addRow(tr("Memory budget"), budget_row);
  budget_label_ = named(new QLabel(box), "budgetFit");
  budget_label_->setWordWrap(true);
  form->addRow(QString(), budget_label_);
  connect(fit, &QPushButton::clicked, this, &ExperimentPanel::fitMemoryBudget);
  connect(budget_edit_, &QLineEdit::returnPressed, this, &ExperimentPanel::fitMemoryBudget);
  connect(budget_edit_, &QLineEdit::editingFinished, this, &ExperimentPanel::configEdited);
  // The run enforces the budget it started with.
  locked_while_running_ << budget_edit_;
  memory_estimator_ = new MemoryEstimator(this);
  connect(memory_estimator_, &MemoryEstimator::modelReady, this,
          &ExperimentPanel::updateDerivedLabels);
  connect(memory_estimator_, &MemoryEstimator::modelReady, this, &ExperimentPanel::checkOpenedFile);
  memory_probe_timer_ = new QTimer(this);
  memory_probe_timer_->setSingleShot(true);
  memory_probe_timer_->setInterval(kMemoryProbeDelayMs);
  connect(memory_probe_timer_, &QTimer::timeout, this, [this] {
    if (running_) return;  // the probe would compete with the run; asked again when it ends
    memory_estimator_->request(config());
    updateDerivedLabels();
  });
  connect(this, &ExperimentPanel::configEdited, this, &ExperimentPanel::scheduleMemoryProbe);
  auto* arms = new QHBoxLayout;
  for (const ArmKind arm : kComparedArms) {
    auto* check = new QCheckBox(armName(arm), box);
    check->setToolTip(comparedArmTip(arm));
    check->setStyleSheet(
        QString("QCheckBox { color: %1; font-weight: bold; }").arg(armColorName(arm)));
    arms->addWidget(check);
    locked_while_running_ << check;
    connect(check, &QCheckBox::toggled, this, &ExperimentPanel::configEdited);
    arm_checks_.emplace_back(arm, check);
  }
  form->addRow(tr("Arms"), arms);
  // A row of its own: beside the arms it would widen the dock past a 1024×768 screen.
  pitfalls_ = new PitfallPicker(box);
  locked_while_running_ << pitfalls_;
  connect(pitfalls_, &PitfallPicker::chosenChanged, this, &ExperimentPanel::configEdited);
  form->addRow(tr("Wrong recipes"), pitfalls_);
  connect(micro_slider_, &BatchSlider::valuePreview, this, &ExperimentPanel::updateDerivedLabels);
  connect(accum_slider_, &BatchSlider::valuePreview, this, &ExperimentPanel::updateDerivedLabels);
  connect(micro_slider_, &BatchSlider::valueChanged, this, [this](qint64 m) {
    updateDerivedLabels();
    emit microBatchChanged(m);
    emit configEdited();
  });
  connect(accum_slider_, &BatchSlider::valueChanged, this, [this](qint64 k) {
    updateDerivedLabels();
    emit accumChanged(k);
    emit configEdited();
  });
  return box;
}

QWidget* ExperimentPanel::buildTrainingGroup() {
  auto* box = new QGroupBox(tr("Training"), this);
  auto* form = new QFormLayout(box);
  policy_combo_ = new QComboBox(box);
  addEnumItems(policy_combo_, {WindowPolicy::kStream, WindowPolicy::kFlushExact,
                               WindowPolicy::kFlushDivideByK, WindowPolicy::kDrop});
  for (int i = 0; i < policy_combo_->count(); ++i) {
    const auto policy = static_cast<WindowPolicy>(policy_combo_->itemData(i).toInt());
    policy_combo_->setItemData(i, windowPolicyTip(policy), Qt::ToolTipRole);
  }
  dtype_combo_ = new QComboBox(box);
  addEnumItems(dtype_combo_, {DType::kFloat32, DType::kFloat64});
  budget_kind_combo_ = new QComboBox(box);
  budget_kind_combo_->addItems({tr("epochs"), tr("samples")});
  epochs_spin_ = new QDoubleSpinBox(box);
  epochs_spin_->setRange(0.01, 1000);
  epochs_spin_->setDecimals(2);
  samples_spin_ = new QSpinBox(box);
  samples_spin_->setRange(1, 2'000'000'000);
  samples_spin_->setSingleStep(10'000);
  samples_spin_->setGroupSeparatorShown(true);
  auto* budget = new QHBoxLayout;
  budget->addWidget(epochs_spin_, 1);
  budget->addWidget(samples_spin_, 1);
  budget->addWidget(budget_kind_combo_);
  eval_spin_ = new QSpinBox(box);
  eval_spin_->setRange(0, 2'000'000'000);
  eval_spin_->setSingleStep(1000);
  eval_spin_->setGroupSeparatorShown(true);
  eval_spin_->setSpecialValueText(tr("each epoch"));
  eval_spin_->setSuffix(tr(" samples"));
  seed_spin_ = new QSpinBox(box);
  seed_spin_->setRange(0, 2'000'000'000);
  device_combo_ = new QComboBox(box);
  device_combo_->addItem(tr("auto"), "auto");
  device_combo_->addItem(tr("CPU"), "cpu");
  device_combo_->addItem(tr("CUDA"), "cuda");
  if (!cudaAvailable()) {
    auto* model = qobject_cast<QStandardItemModel*>(device_combo_->model());
    QStandardItem* cuda = model->item(2);
    cuda->setEnabled(false);
    cuda->setToolTip(
        tr("CUDA is unavailable: this LibTorch build has no CUDA or no GPU is "
           "visible. Build against a CUDA LibTorch to train on a GPU."));
  }
  form->addRow(tr("Short last window"), policy_combo_);
  form->addRow(tr("Precision"), dtype_combo_);
  form->addRow(tr("Budget per arm"), budget);
  form->addRow(tr("Evaluate every"), eval_spin_);
  form->addRow(tr("Seed"), seed_spin_);
  workers_spin_ = new QSpinBox(box);
  workers_spin_->setRange(1, static_cast<int>(kMaxWorkers));
  workers_spin_->setToolTip(
      tr("Data-parallel workers on this machine (N). Each accum window takes m·K·N samples: every "
         "worker accumulates its K micro-batches alone, then one all-reduce of the gradient sums "
         "gives all of them the same update, which big-batch (m·K·N) must match. Pause and "
         "mid-run changes of m and K are off while N > 1."));
  form->addRow(tr("Device"), device_combo_);
  arms_at_once_ = named(
      new QCheckBox(tr("arms at once"), box), "arms_at_once",
      tr("Each arm trains on its own core between the points that tie them (a change of m or K, "
         "big-batch's comparison with accum, pause, stop): the same numbers to the last digit, "
         "sooner on a machine with several cores (--arm-threads, docs/performance.md)."));
  auto* workers_row = new QHBoxLayout;
  workers_row->addWidget(workers_spin_);
  workers_row->addWidget(arms_at_once_, 1);
  form->addRow(tr("Workers"), workers_row);
  keep_weights_ = named(new QCheckBox(tr("keep each arm's final weights"), box), "keepWeights",
                        tr("Store each arm's trained model with its run (about the size of its "
                           "weights: 0.5 MB an arm for the default MLP), for File → Save trained "
                           "model… and accumlab-cli export-model (--keep-weights)"));
  form->addRow(tr("Trained model"), keep_weights_);
  connect(keep_weights_, &QCheckBox::toggled, this, &ExperimentPanel::configEdited);
  locked_while_running_ << policy_combo_ << dtype_combo_ << budget_kind_combo_ << epochs_spin_
                        << samples_spin_ << eval_spin_ << seed_spin_ << device_combo_
                        << workers_spin_ << arms_at_once_ << keep_weights_;
  connect(arms_at_once_, &QCheckBox::toggled, this, &ExperimentPanel::configEdited);
  connect(budget_kind_combo_, qOverload<int>(&QComboBox::currentIndexChanged), this, [this](int i) {
    epochs_spin_->setVisible(i == 0);
    samples_spin_->setVisible(i == 1);
    emit configEdited();
  });
  for (QComboBox* c : {policy_combo_, dtype_combo_, device_combo_}) {
    connect(c, qOverload<int>(&QComboBox::currentIndexChanged), this,
            &ExperimentPanel::configEdited);
  }
  connect(workers_spin_, qOverload<int>(&QSpinBox::valueChanged), this,
          &ExperimentPanel::updateDerivedLabels);
  for (QSpinBox* s : {samples_spin_, eval_spin_, seed_spin_, workers_spin_}) {
    connect(s, qOverload<int>(&QSpinBox::valueChanged), this, &ExperimentPanel::configEdited);
  }
  connect(epochs_spin_, qOverload<double>(&QDoubleSpinBox::valueChanged), this,
          &ExperimentPanel::configEdited);
  return box;
}

void ExperimentPanel::setRunActions(QAction* run, QAction* pause, QAction* stop) {
  run_buttons_ = new QWidget(this);
  auto* row = new QHBoxLayout(run_buttons_);
  row->setContentsMargins(0, 4, 0, 0);
  for (QAction* a : {run, pause, stop}) {
    auto* b = new QToolButton(run_buttons_);
    b->setDefaultAction(a);
    b->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    b->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    row->addWidget(b);
  }
  auto* box = static_cast<QVBoxLayout*>(layout());
  box->insertWidget(box->count() - 1, run_buttons_);
}

ExperimentConfig ExperimentPanel::config() const {
  ExperimentConfig c = base_;
  sources_->writeTo(&c);
  c.micro_batch = micro_slider_->value();
  c.accum = accum_slider_->value();
  c.arms.clear();
  for (const auto& [arm, check] : arm_checks_) {
    if (check->isChecked()) c.arms.push_back(arm);
  }
  for (const ArmKind arm : pitfalls_->chosen()) c.arms.push_back(arm);
  optimizer_->writeTo(&c.optimizer);
  c.window_policy = enumOf<WindowPolicy>(policy_combo_);
  c.dtype = enumOf<DType>(dtype_combo_);
  if (budget_kind_combo_->currentIndex() == 0) {
    c.epochs = epochs_spin_->value();
    c.samples = 0;
  } else {
    c.samples = samples_spin_->value();
  }
  c.eval_every = eval_spin_->value();
  c.seed = static_cast<uint64_t>(seed_spin_->value());
  c.device = device_combo_->currentData().toString().toStdString();
  c.workers = workers_spin_->value();
  c.keep_weights = keep_weights_->isChecked();
  // A count of threads from a config file is kept while the box stays ticked.
  c.arm_threads = !arms_at_once_->isChecked() ? 1 : base_.arm_threads != 1 ? base_.arm_threads : 0;
  c.memory_budget = 0;
  try {
    checkMemoryBudget();
    const std::string budget = budget_edit_->text().trimmed().toStdString();
    if (!budget.empty()) c.memory_budget = parseByteSize(budget);
  } catch (const InputError&) {
  }
  return c;
}

void ExperimentPanel::checkMemoryBudget() const {
  const std::string budget = budget_edit_->text().trimmed().toStdString();
  if (!budget.empty()) parseByteSize(budget);
}

void ExperimentPanel::setConfig(const ExperimentConfig& c) {
  base_ = c;
  const QSignalBlocker block(this);  // one configEdited per user edit, none for this
  sources_->setConfig(c);
  micro_slider_->setValue(c.micro_batch);
  accum_slider_->setValue(c.accum);
  for (const auto& [arm, check] : arm_checks_) {
    check->setChecked(std::find(c.arms.begin(), c.arms.end(), arm) != c.arms.end());
  }
  pitfalls_->setConfig(c);
  optimizer_->setConfig(c.optimizer);
  selectEnum(policy_combo_, c.window_policy);
  selectEnum(dtype_combo_, c.dtype);
  budget_kind_combo_->setCurrentIndex(c.samples > 0 ? 1 : 0);
  epochs_spin_->setValue(c.epochs > 0 ? c.epochs : 1.0);
  samples_spin_->setValue(static_cast<int>(c.samples > 0 ? c.samples : 100'000));
  epochs_spin_->setVisible(c.samples <= 0);
  samples_spin_->setVisible(c.samples > 0);
  eval_spin_->setValue(static_cast<int>(c.eval_every));
  seed_spin_->setValue(static_cast<int>(c.seed));
  budget_edit_->setText(c.memory_budget > 0 ? QString::fromStdString(
                                                  formatBytes(static_cast<double>(c.memory_budget)))
                                            : QString());
  const int device = device_combo_->findData(QString::fromStdString(c.device).section(':', 0, 0));
  device_combo_->setCurrentIndex(std::max(0, device));
  workers_spin_->setValue(static_cast<int>(c.workers));
  arms_at_once_->setChecked(c.arm_threads != 1);
  keep_weights_->setChecked(c.keep_weights);
  updateDerivedLabels();
  scheduleMemoryProbe();
}

void ExperimentPanel::checkOpenedFile() {
  // The probe read the file the user just opened: a file that does not load is said at once,
  // in the dialog every bad input gets, and leaves the picker (not only when Run is pressed).
  const QString spec = sources_->uncheckedSpec();
  if (spec.isEmpty()) return;
  const ExperimentConfig c = config();
  if (QString::fromStdString(c.data) != spec && QString::fromStdString(c.model) != spec) return;
  const QString failure = memory_estimator_->failure();
  if (failure.isEmpty()) {
    if (memory_estimator_->current()) sources_->acceptUnchecked();
    return;
  }
  // Whether it is the file itself (its message names it) or the pair it makes with the
  // other picker (a model for other inputs): the entry goes only in the first case.
  const QString path = spec.section(':', 1);
  if (failure.contains(path)) sources_->rejectUnchecked();
  emit openFailed(failure);
}

void ExperimentPanel::scheduleMemoryProbe() { memory_probe_timer_->start(); }

QString ExperimentPanel::memoryEstimateText() const { return memory_label_->text(); }

void ExperimentPanel::fitMemoryBudget() {
  const ExperimentConfig before = config();
  // One worker's share of an update: what its memory holds m of at a time.
  const int64_t b = before.micro_batch * before.accum;
  const auto model = memory_estimator_->current();
  if (!model) {
    budget_label_->setText(memory_estimator_->probing()
                               ? tr("the tensor memory of this model is still being measured; "
                                    "try again in a moment")
                               : tr("the tensor memory of this model is not measured"));
    return;
  }
  BudgetFit fit;
  try {
    fit = accumlab::fitMemoryBudget(*model,
                                    parseByteSize(budget_edit_->text().trimmed().toStdString()), b);
  } catch (const InputError& e) {
    budget_label_->setText(QString::fromStdString(e.what()));
    return;
  }
  if (fit.accum > kMaxAccum) {
    budget_label_->setText(tr("the budget needs K = %1, more than the %2 the slider offers; "
                              "raise the budget or lower m·K")
                               .arg(fit.accum)
                               .arg(kMaxAccum));
    return;
  }
  budget_label_->setText(QString::fromStdString(fit.reason));
  micro_slider_->setValue(fit.micro_batch);
  accum_slider_->setValue(fit.accum);
  batchChanged(before);
}

void ExperimentPanel::batchChanged(const ExperimentConfig& before) {
  const ExperimentConfig now = config();
  updateDerivedLabels();
  const bool m_changed = now.micro_batch != before.micro_batch;
  const bool k_changed = now.accum != before.accum;
  if (m_changed) emit microBatchChanged(now.micro_batch);
  if (k_changed) emit accumChanged(now.accum);
  if (m_changed || k_changed) emit configEdited();
}

void ExperimentPanel::setRunning(bool running) {
  running_ = running;
  if (!running) scheduleMemoryProbe();
  for (QWidget* w : locked_while_running_) w->setEnabled(!running);
  optimizer_->setRunning(running);
  sources_->setRunning(running);
}

void ExperimentPanel::setLessonRunning(bool running) {
  lesson_note_->setVisible(running);
  for (QWidget* group : groups_) group->setEnabled(!running);
}

void ExperimentPanel::setStorePath(const QString& path) { sources_->setStorePath(path); }

bool ExperimentPanel::openPath(const QString& path, QString* error) {
  return sources_->openPath(path, error);
}

void ExperimentPanel::updateDerivedLabels() {
  if (!arms_at_once_) return;  // the form is still being built; setConfig() fills the labels
  const ExperimentConfig c = config();
  const int64_t m = c.micro_batch;
  // N workers share each accum window: its update is m·K·N samples (K·N micro-batches).
  const int64_t k = windowMicroBatches(c);
  // What the memory of m saves is the model's to say (the line below): on a small MLP its
  // weights dominate and accum needs nearly big-batch's memory.
  effective_label_->setText(
      (c.workers > 1 ? tr("effective batch m·K·N = <b>%1</b>")
                     : tr("effective batch m·K = <b>%1</b>"))
          .arg(QLocale().toString(static_cast<qlonglong>(effectiveBatch(c)))));
  memory_label_->setToolTip(memory_tip_);
  if (const auto model = memory_estimator_->current()) {
    memory_label_->setText(ui::memoryRatioText(*model, m, k));
    memory_label_->setToolTip(ui::memoryEstimateText(*model, m, k) + "<br><br>" + memory_tip_);
  } else if (memory_estimator_->probing()) {
    memory_label_->setText(tr("measuring the tensor memory of this model…"));
  } else {
    memory_label_->setText(memory_estimator_->failure().isEmpty()
                               ? QString()
                               : tr("tensor memory: not measured (%1)")
                                     .arg(memory_estimator_->failure().section('\n', 0, 0)));
  }
  optimizer_->showLearningRates(k);
}

}  // namespace accumlab::ui
