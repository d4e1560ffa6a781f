// SPDX-License-Identifier: GPL-3.0-or-later
#include "experiment/optimizer_form.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>

#include "accumlab/training_rules.h"
#include "experiment/enum_combo.h"
#include "widgets/named.h"

namespace accumlab::ui {

namespace {

/// A spin box for a factor in [lo, hi] with `decimals` places.
QDoubleSpinBox* factorSpin(double lo, double hi, int decimals, QWidget* parent) {
  auto* spin = new QDoubleSpinBox(parent);
  spin->setRange(lo, hi);
  spin->setDecimals(decimals);
  spin->setStepType(QAbstractSpinBox::AdaptiveDecimalStepType);
  return spin;
}

/// A spin box for a count of samples, 0 meaning `zero`.
QSpinBox* samplesSpin(const QString& zero, QWidget* parent) {
  auto* spin = new QSpinBox(parent);
  spin->setRange(0, 2'000'000'000);
  spin->setSingleStep(1000);
  spin->setGroupSeparatorShown(true);
  spin->setSpecialValueText(zero);
  spin->setSuffix(OptimizerForm::tr(" samples"));
  return spin;
}

/// Two widgets side by side, as one row of a form.
QWidget* pair(QWidget* parent, QWidget* a, QWidget* b, QWidget* c = nullptr) {
  auto* row = new QWidget(parent);
  auto* layout = new QHBoxLayout(row);
  layout->setContentsMargins(0, 0, 0, 0);
  for (QWidget* w : {a, b, c}) {
    if (w) layout->addWidget(w, 1);
  }
  return row;
}

}  // namespace

OptimizerForm::OptimizerForm(QWidget* parent) : QGroupBox(tr("Optimizer"), parent) {
  setObjectName("optimizerForm");
  form_ = new QFormLayout(this);
  kind_ = named(new QComboBox(this), "optimizer");
  addEnumItems(kind_, {OptimizerKind::kSgd, OptimizerKind::kAdam, OptimizerKind::kAdamW});
  lr_ = named(factorSpin(1e-6, 10.0, 6, this), "lr",
              tr("The base learning rate, used as is by no-accum"));
  momentum_ = named(factorSpin(0.0, 0.999, 3, this), "momentum",
                    tr("SGD's momentum: the share of the last update carried into the next"));
  momentum_->setSingleStep(0.05);
  nesterov_ = named(new QCheckBox(tr("Nesterov"), this), "nesterov",
                    tr("Nesterov momentum: the gradient is taken one momentum step ahead"));
  sgd_row_ = pair(this, momentum_, nesterov_);
  beta1_ = named(factorSpin(0.0, 0.9999, 4, this), "beta1",
                 tr("Adam's β₁: how long the mean of the gradients remembers"));
  beta1_->setPrefix("β₁ ");
  beta2_ = named(factorSpin(0.0, 0.99999, 5, this), "beta2",
                 tr("Adam's β₂: how long the mean of the squared gradients remembers"));
  beta2_->setPrefix("β₂ ");
  betas_row_ = pair(this, beta1_, beta2_);
  weight_decay_ = named(factorSpin(0.0, 1.0, 6, this), "weightDecay",
                        tr("Weight decay: an L2 penalty added to the gradient for SGD and Adam, "
                           "decoupled from it for AdamW"));
  weight_decay_->setSpecialValueText(tr("none"));
  scaling_ = named(new QComboBox(this), "lrScaling");
  addEnumItems(scaling_, {LrScaling::kNone, LrScaling::kLinear, LrScaling::kSqrt});
  scaling_->setToolTip(
      tr("How accum and big-batch scale the base LR for their K-times larger batch: none "
         "(same LR), linear (×K, Goyal et al.) or sqrt (×√K)"));
  schedule_ = named(new QComboBox(this), "lrSchedule");
  addEnumItems(schedule_, {LrSchedule::kConstant, LrSchedule::kStep, LrSchedule::kCosine});
  schedule_->setToolTip(
      tr("How the LR changes over the run, by samples seen: constant, step (× the factor "
         "every period) or cosine (down to 0 at the end of the budget). The schedule steps once "
         "per update, never once per micro-batch (see the wrong recipe schedule-per-micro)."));
  step_every_ = named(samplesSpin(tr("each epoch"), this), "stepEvery",
                      tr("The step schedule's period, in samples seen"));
  step_every_->setPrefix(tr("every "));
  step_gamma_ = named(factorSpin(0.0001, 1.0, 4, this), "stepGamma",
                      tr("The factor the step schedule multiplies the LR by each period"));
  step_gamma_->setPrefix("× ");
  step_row_ = pair(this, step_every_, step_gamma_);
  warmup_ = named(samplesSpin(tr("none"), this), "warmup",
                  tr("A linear warm-up of the LR from 0 over this many samples seen"));
  clip_norm_ =
      named(factorSpin(0.0, 1e6, 3, this), "clipNorm",
            tr("Clip the accumulated gradient of each update to this norm (0: off). Clipping each "
               "micro-batch's gradient instead is a wrong recipe (clip-each)."));
  clip_norm_->setSpecialValueText(tr("off"));
  rule_ = named(new QLabel(this), "lrRule");
  rule_->setWordWrap(true);

  form_->addRow(tr("Optimizer"), kind_);
  form_->addRow(tr("Learning rate"), lr_);
  form_->addRow(tr("Momentum"), sgd_row_);
  form_->addRow(tr("Betas"), betas_row_);
  form_->addRow(tr("Weight decay"), weight_decay_);
  form_->addRow(tr("LR scaling"), scaling_);
  form_->addRow(tr("LR schedule"), schedule_);
  form_->addRow(tr("Step"), step_row_);
  form_->addRow(tr("Warm-up"), warmup_);
  form_->addRow(tr("Clip norm"), clip_norm_);
  form_->addRow(QString(), rule_);

  for (QComboBox* combo : {kind_, scaling_, schedule_}) {
    connect(combo, qOverload<int>(&QComboBox::currentIndexChanged), this, [this] {
      updateRows();
      emit edited();
    });
  }
  for (QDoubleSpinBox* spin :
       {lr_, momentum_, beta1_, beta2_, weight_decay_, step_gamma_, clip_norm_}) {
    connect(spin, qOverload<double>(&QDoubleSpinBox::valueChanged), this, &OptimizerForm::edited);
  }
  for (QSpinBox* spin : {step_every_, warmup_}) {
    connect(spin, qOverload<int>(&QSpinBox::valueChanged), this, &OptimizerForm::edited);
  }
  connect(nesterov_, &QCheckBox::toggled, this, &OptimizerForm::edited);
  updateRows();
}

void OptimizerForm::writeTo(OptimizerConfig* o) const {
  o->kind = enumOf<OptimizerKind>(kind_);
  o->lr = lr_->value();
  o->momentum = momentum_->value();
  o->nesterov = nesterov_->isChecked();
  o->beta1 = beta1_->value();
  o->beta2 = beta2_->value();
  o->eps = eps_;
  o->weight_decay = weight_decay_->value();
  o->scaling = enumOf<LrScaling>(scaling_);
  o->schedule = enumOf<LrSchedule>(schedule_);
  o->step_every_samples = step_every_->value();
  o->step_gamma = step_gamma_->value();
  o->warmup_samples = warmup_->value();
  o->clip_norm = clip_norm_->value();
}

void OptimizerForm::setConfig(const OptimizerConfig& o) {
  const QSignalBlocker block(this);
  // Each child's own signal reaches edited() through this object: blocking it is enough.
  selectEnum(kind_, o.kind);
  lr_->setValue(o.lr);
  momentum_->setValue(o.momentum);
  nesterov_->setChecked(o.nesterov);
  beta1_->setValue(o.beta1);
  beta2_->setValue(o.beta2);
  eps_ = o.eps;
  weight_decay_->setValue(o.weight_decay);
  selectEnum(scaling_, o.scaling);
  selectEnum(schedule_, o.schedule);
  step_every_->setValue(static_cast<int>(std::min<int64_t>(o.step_every_samples, 2'000'000'000)));
  step_gamma_->setValue(o.step_gamma);
  warmup_->setValue(static_cast<int>(std::min<int64_t>(o.warmup_samples, 2'000'000'000)));
  clip_norm_->setValue(o.clip_norm);
  updateRows();
}

void OptimizerForm::updateRows() {
  const auto kind = enumOf<OptimizerKind>(kind_);
  form_->setRowVisible(sgd_row_, kind == OptimizerKind::kSgd);
  form_->setRowVisible(betas_row_, kind != OptimizerKind::kSgd);
  form_->setRowVisible(step_row_, enumOf<LrSchedule>(schedule_) == LrSchedule::kStep);
}

void OptimizerForm::showLearningRates(int64_t micro_batches) {
  OptimizerConfig o;
  writeTo(&o);
  const QString rule = o.scaling == LrScaling::kLinear ? tr("×K")
                       : o.scaling == LrScaling::kSqrt ? tr("×√K")
                                                       : tr("same LR");
  QString text =
      tr("no-accum: %1 · accum, big-batch: %2 (%3)")
          .arg(QString::number(o.lr, 'g', 4),
               QString::number(scaledLearningRate(o, static_cast<double>(micro_batches)), 'g', 4),
               rule);
  if (o.schedule != LrSchedule::kConstant || o.warmup_samples > 0) {
    text += tr("; the schedule moves all of them alike, by samples seen");
  }
  rule_->setText(text);
}

void OptimizerForm::setRunning(bool running) {
  running_ = running;
  for (QWidget* w : findChildren<QWidget*>()) {
    if (w != rule_) w->setEnabled(!running);
  }
}

}  // namespace accumlab::ui
