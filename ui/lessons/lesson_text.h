// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

#include "accumlab/lesson.h"

namespace accumlab::ui {

/// What a lesson will train and which plots to watch: "A sweep of 21 runs. Watch: Steps to
/// target against B (Sweeps tab)." (the titles from the plot catalog).
QString lessonPlanText(const Lesson& lesson);

/// The verdict card as rich text: every check holds or not, the prediction against what was
/// measured (or, when the lesson `asked` and none was given, a reminder), and a row per check
/// with its value, 90% interval, theory, ✓/✗ and its sentence.
QString verdictCardHtml(const LessonVerdict& verdict, bool asked);

}  // namespace accumlab::ui
