// SPDX-License-Identifier: GPL-3.0-or-later
#include "plots/arm_style.h"

namespace accumlab::ui {

namespace {
// Colour-blind-safe (Tableau 10): the noisy baseline warm, the accumulated arm blue, the
// big batch green. big-batch is dashed so that it stays visible where it lies on accum.
constexpr QRgb kNoAccumColor = 0xE15759;
constexpr QRgb kAccumColor = 0x4E79A7;
constexpr QRgb kBigBatchColor = 0x59A14F;
// The pitfall arms (Tableau 20's muted half, apart from the arms' and the compared runs'
// colours), in ArmKind order from pitfall:sum; they are drawn dash-dotted.
constexpr QRgb kPitfallColors[] = {0xB6992D, 0x499894, 0xD37295, 0x9D7660,
                                   0x79706E, 0xD4A6C8, 0x86BCB6};
}  // namespace

QColor armColor(ArmKind arm) {
  switch (arm) {
    case ArmKind::kNoAccum:
      return QColor(kNoAccumColor);
    case ArmKind::kAccum:
      return QColor(kAccumColor);
    case ArmKind::kBigBatch:
      return QColor(kBigBatchColor);
    default:
      break;
  }
  const auto pitfall = static_cast<size_t>(arm) - static_cast<size_t>(ArmKind::kPitfallSum);
  return QColor(kPitfallColors[pitfall % (sizeof kPitfallColors / sizeof *kPitfallColors)]);
}

QString armName(ArmKind arm) { return QString::fromStdString(toString(arm)); }

QString armLegendName(ArmKind arm) {
  // "pitfall:schedule-per-micro" six times over crowds a legend row at 1024×768.
  return isPitfall(arm) ? QStringLiteral("✗ ") + armName(arm).remove(QStringLiteral("pitfall:"))
                        : armName(arm);
}

QString armColorName(ArmKind arm) { return armColor(arm).name(); }

QPen armPen(ArmKind arm) {
  QPen pen(armColor(arm), 1.0);
  if (arm == ArmKind::kBigBatch) pen.setStyle(Qt::DashLine);
  // The wrong recipes are solid, so that their smoothed lines are drawn bold like accum's
  // (a projector washes thin dash-dots out); their colours tell them apart.
  return pen;
}

QColor runColor(int run) {
  // Tableau 10 without the arms' three, so that a compared run is never read as an arm.
  static const QRgb kRunColors[] = {0xF28E2B, 0x76B7B2, 0xB07AA1, 0x9C755F,
                                    0xEDC948, 0xFF9DA7, 0xBAB0AC};
  constexpr int n = sizeof kRunColors / sizeof *kRunColors;
  return QColor(kRunColors[((run % n) + n) % n]);
}

Qt::PenStyle armLineStyle(ArmKind arm) {
  switch (arm) {
    case ArmKind::kNoAccum:
      return Qt::SolidLine;
    case ArmKind::kAccum:
      return Qt::DashLine;
    case ArmKind::kBigBatch:
      return Qt::DotLine;
    default:
      return Qt::DashDotLine;  // the pitfall arms
  }
}

QPen comparePen(ArmKind arm, int run, double width) {
  QPen pen(runColor(run), width);
  pen.setStyle(armLineStyle(arm));
  return pen;
}

}  // namespace accumlab::ui
