// SPDX-License-Identifier: GPL-3.0-or-later
#include "experiment/pitfall_picker.h"

#include <QAction>
#include <QMenu>
#include <QSignalBlocker>
#include <algorithm>

#include "plots/arm_style.h"

namespace accumlab::ui {

PitfallPicker::PitfallPicker(QWidget* parent) : QToolButton(parent) {
  setObjectName("pitfallPicker");
  setPopupMode(QToolButton::InstantPopup);
  setToolTip(
      tr("Train wrong accumulation recipes as arms beside accum, from the same weights "
         "on the same samples: each shows how far its mistake takes it from the big "
         "batch (the gradient check measures it)"));
  auto* menu = new QMenu(this);
  menu->setToolTipsVisible(true);
  for (const ArmKind arm : pitfallArms()) {
    QAction* action = menu->addAction(armName(arm));
    action->setCheckable(true);
    action->setToolTip(explanation(arm));
    action->setData(static_cast<int>(arm));
    connect(action, &QAction::toggled, this, [this] {
      updateText();
      emit chosenChanged();
    });
    actions_.push_back(action);
  }
  setMenu(menu);
  updateText();
}

std::vector<ArmKind> PitfallPicker::chosen() const {
  std::vector<ArmKind> arms;
  for (const QAction* a : actions_) {
    if (a->isChecked()) arms.push_back(static_cast<ArmKind>(a->data().toInt()));
  }
  return arms;
}

void PitfallPicker::setConfig(const ExperimentConfig& config) {
  const std::vector<ArmKind>& arms = config.arms;
  for (QAction* a : actions_) {
    const QSignalBlocker block(a);
    const auto arm = static_cast<ArmKind>(a->data().toInt());
    const std::string unmet = pitfallUnmet(arm, config);
    a->setEnabled(unmet.empty());
    a->setToolTip(
        unmet.empty()
            ? explanation(arm)
            : explanation(arm) +
                  QStringLiteral("<p><i>%1</i></p>")
                      .arg(tr("Not here: %1.").arg(QString::fromStdString(unmet)).toHtmlEscaped()));
    a->setChecked(std::find(arms.begin(), arms.end(), arm) != arms.end());
  }
  updateText();
}

void PitfallPicker::offerFor(const ExperimentConfig& config) {
  setConfig(config);
  for (QAction* a : actions_) {
    if (a->isChecked() && !a->isEnabled()) a->setChecked(false);  // emits chosenChanged
  }
}

void PitfallPicker::updateText() {
  const size_t n = chosen().size();
  setText(n == 0 ? tr("Common mistakes") : tr("Common mistakes (%1)").arg(n));
}

QString PitfallPicker::explanation(ArmKind arm) {
  QString what, loop;
  switch (arm) {
    case ArmKind::kPitfallSum:
      what =
          tr("Adds the K micro-batches' gradients and never divides by K: every update is "
             "K× too large. With SGD that is LR×K (it may diverge); Adam hardly notices.");
      loop = "for mb in window:\n    loss_fn(model(mb)).backward()  # no / K\nopt.step()";
      break;
    case ArmKind::kPitfallLastOnly:
      what =
          tr("Zeroes the gradients inside the loop, so only the last micro-batch counts: "
             "the noise of m, not of m·K.");
      loop =
          "for mb in window:\n    opt.zero_grad()\n    loss_fn(model(mb)).backward()\nopt.step()";
      break;
    case ArmKind::kPitfallDoubleLast:
      what =
          tr("Adds the last micro-batch's gradient twice: the update leans towards one "
             "micro-batch in K.");
      loop =
          "for mb in window:\n    (loss_fn(model(mb)) / K).backward()\n"
          "(loss_fn(model(mb)) / K).backward()  # once more\nopt.step()";
      break;
    case ArmKind::kPitfallMeanOfMeans:
      what =
          tr("Divides each micro-batch's mean loss by K: exact only when every micro-batch "
             "has the same size, wrong at each uneven window (an epoch's end, sequences of "
             "different lengths).");
      loop = "for mb in window:\n    (loss_fn(model(mb)).mean() / K).backward()\nopt.step()";
      break;
    case ArmKind::kPitfallClipEach:
      what =
          tr("Clips each micro-batch's gradient before adding it (needs a clip norm): a "
             "smaller, different update whenever one exceeds the norm.");
      loop =
          "for mb in window:\n    g = grad(loss_fn(model(mb)))\n"
          "    total += clip(g, max_norm) / K\nstep(total)";
      break;
    case ArmKind::kPitfallNoZero:
      what =
          tr("Never zeroes the gradients between windows: every update repeats all the "
             "gradients before it.");
      loop =
          "for mb in window:\n    (loss_fn(model(mb)) / K).backward()\n"
          "opt.step()  # opt.zero_grad() forgotten";
      break;
    case ArmKind::kPitfallSchedulePerMicro:
      what =
          tr("Steps the LR schedule once per micro-batch instead of once per update: the "
             "schedule runs K× too fast (needs a schedule).");
      loop =
          "for i, mb in enumerate(loader):\n    (loss_fn(model(mb)) / K).backward()\n"
          "    if (i + 1) % K == 0:\n        opt.step(); opt.zero_grad()\n"
          "    scheduler.step()  # per micro-batch";
      break;
    default:
      return QString();
  }
  return QStringLiteral("<p>%1</p><pre>%2</pre>").arg(what.toHtmlEscaped(), loop.toHtmlEscaped());
}

}  // namespace accumlab::ui
