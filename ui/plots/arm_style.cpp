#include "plots/arm_style.h"

namespace accumlab::ui {

namespace {
// Colour-blind-safe (Tableau 10): the noisy baseline warm, the accumulated arm blue, the
// big batch green. big-batch is dashed so that it stays visible where it lies on accum.
constexpr QRgb kNoAccumColor = 0xE15759;
constexpr QRgb kAccumColor = 0x4E79A7;
constexpr QRgb kBigBatchColor = 0x59A14F;
}  // namespace

QColor armColor(ArmKind arm) {
  switch (arm) {
    case ArmKind::kNoAccum:
      return QColor(kNoAccumColor);
    case ArmKind::kAccum:
      return QColor(kAccumColor);
    case ArmKind::kBigBatch:
      return QColor(kBigBatchColor);
  }
  return Qt::black;
}

QString armName(ArmKind arm) { return QString::fromStdString(toString(arm)); }

QString armColorName(ArmKind arm) { return armColor(arm).name(); }

QPen armPen(ArmKind arm) {
  QPen pen(armColor(arm), 1.0);
  if (arm == ArmKind::kBigBatch) pen.setStyle(Qt::DashLine);
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
  }
  return Qt::SolidLine;
}

QPen comparePen(ArmKind arm, int run, double width) {
  QPen pen(runColor(run), width);
  pen.setStyle(armLineStyle(arm));
  return pen;
}

}  // namespace accumlab::ui
