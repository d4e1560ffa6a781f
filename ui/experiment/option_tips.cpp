// SPDX-License-Identifier: GPL-3.0-or-later
#include "experiment/option_tips.h"

#include <QObject>

namespace accumlab::ui {

QString comparedArmTip(ArmKind arm) {
  switch (arm) {
    case ArmKind::kNoAccum:
      return QObject::tr("m samples per update: the noisy baseline");
    case ArmKind::kAccum:
      return QObject::tr("K micro-batches of m per update (effective batch m·K)");
    case ArmKind::kBigBatch:
      return QObject::tr("one real batch of m·K per update: what accum must equal");
    default:
      return QString();
  }
}

QString windowPolicyTip(WindowPolicy policy) {
  switch (policy) {
    case WindowPolicy::kStream:
      return QObject::tr("Windows run across epoch ends: nothing is dropped or under-scaled");
    case WindowPolicy::kFlushExact:
      return QObject::tr("The short last window of an epoch updates with its true sample count");
    case WindowPolicy::kFlushDivideByK:
      return QObject::tr(
          "The short last window is divided by K as if full (Lightning/Accelerate): "
          "under-scaled, for teaching");
    case WindowPolicy::kDrop:
      return QObject::tr("The short last window of an epoch is discarded");
  }
  return QString();
}

}  // namespace accumlab::ui
