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
    case ArmKind::kNoAccum: return QColor(kNoAccumColor);
    case ArmKind::kAccum: return QColor(kAccumColor);
    case ArmKind::kBigBatch: return QColor(kBigBatchColor);
  }
  return Qt::black;
}

QString armName(ArmKind arm) { return QString::fromStdString(toString(arm)); }

QString armColorName(ArmKind arm) { return armColor(arm).name(); }

QPen armPen(ArmKind arm, int source, double width, int alpha) {
  QColor c = armColor(arm);
  c.setAlpha(alpha);
  QPen pen(c, width);
  static const Qt::PenStyle kRunStyles[] = {Qt::SolidLine, Qt::DashLine, Qt::DotLine,
                                            Qt::DashDotLine, Qt::DashDotDotLine};
  if (source > 0) {
    pen.setStyle(kRunStyles[source % 5]);
  } else if (arm == ArmKind::kBigBatch) {
    pen.setStyle(Qt::DashLine);
  }
  return pen;
}

}  // namespace accumlab::ui
