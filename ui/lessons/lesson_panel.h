// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QElapsedTimer>
#include <QString>
#include <QStringList>
#include <QWidget>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "accumlab/lesson.h"
#include "accumlab/lesson_session.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QStackedWidget;

namespace accumlab {
class RunStore;
struct StoredRun;
}  // namespace accumlab

namespace accumlab::ui {

class TrainingController;

/// The Lessons tab (docs/lessons.md): the lessons with a mark for the latest attempt at each,
/// the chosen lesson's text and question, Run, and after its runs a verdict card —
/// predicted, measured with its interval, theory, ✓/✗ and the explanation. A view over the
/// attempt's LessonSession, which holds its jobs, results, runs, sweep and verdict: the
/// panel trains the session's jobs one after the other through the window's
/// TrainingController (so the Live tab shows each as it trains and the store keeps them),
/// each with a LessonRecorder as `accumlab-cli lesson run` does, and shows what the session
/// holds. GUI thread.
class LessonPanel : public QWidget {
  Q_OBJECT

 public:
  explicit LessonPanel(TrainingController* controller, QWidget* parent = nullptr);

  /// The runs the window's store sink wrote for the run that ended last, in arm order.
  using StoredRunsFn = std::function<std::vector<StoredRun>()>;
  /// Uses `store` (nullptr: no database; lessons still run, nothing is kept) and re-reads
  /// the marks; `stored_runs` tells which runs a lesson's run was stored as.
  void setStore(RunStore* store, StoredRunsFn stored_runs);
  /// Lists the lessons of `directory` (lessonDirectory() by default); a bad file is listed
  /// with its problem and cannot be run.
  void loadDirectory(const QString& directory);
  /// Adds a lesson file and selects it; false with errorOccurred() naming the file and the
  /// field when it is not a valid lesson.
  bool openLessonFile(const QString& path);
  /// Opens a lesson by its number in the folder, its id or its file; false (after
  /// errorOccurred) when there is no such lesson.
  bool openLesson(const QString& which);
  /// Selects the lesson at `row` of the list.
  void selectLesson(int row);
  int lessonCount() const;
  int currentRow() const;
  /// Sets the answer to the current lesson's question (a number, or a choice's text).
  void setPrediction(const QString& text);
  /// Trains the current lesson; false with errorOccurred() when it cannot start.
  bool startLesson();
  /// Stops the lesson at the next window boundary; no verdict is given.
  void stopLesson();
  bool isRunning() const { return running_; }
  /// The verdict of the last lesson that finished.
  const std::optional<LessonVerdict>& verdict() const;
  /// The verdict card's text (for tests and screenshots).
  QString verdictText() const;
  /// The stored runs of the last lesson that finished.
  const std::vector<int64_t>& runIds() const;
  /// Writes the HTML report of the last attempt (its verdict and runs) to `path`; false with
  /// errorOccurred() when there is none or it cannot be written.
  bool saveReport(const QString& path);

 signals:
  void errorOccurred(const QString& message);
  void statusChanged(const QString& text);
  /// A lesson's run starts (the window shows the Live tab).
  void lessonRunStarted();
  /// The user asks to see the lesson's runs (in the Live tab) or its sweep (Sweeps tab).
  void showRunsRequested(const std::vector<int64_t>& run_ids);
  void showSweepRequested(int64_t sweep_id);
  /// A lesson ended with a verdict.
  void lessonFinished(bool all_hold);
  /// A lesson began or ended (with a verdict, stopped or failed).
  void runningChanged(bool running);

 private:
  struct Entry {
    QString file;
    std::optional<Lesson> lesson;
    QString problem;  ///< why the file is not a lesson
  };
  void showLesson();
  void refreshMarks();
  void startJob();
  void onFinished(const QString& error, bool input_error);
  void finishLesson();
  void setRunning(bool running);
  void showVerdict();
  QString prediction() const;

  TrainingController* controller_;
  RunStore* store_ = nullptr;
  StoredRunsFn stored_runs_;
  std::vector<Entry> entries_;
  QString shown_file_;  ///< the lesson whose text and question are shown
  QListWidget* list_;
  QLabel* title_;
  QLabel* text_;
  QLabel* plots_hint_;
  QLabel* question_;
  QStackedWidget* answer_;
  QLineEdit* number_;
  QLabel* unit_;
  QComboBox* choice_;
  QPushButton* run_;
  QPushButton* stop_;
  QLabel* progress_;
  QLabel* card_;
  QPushButton* show_runs_;
  QPushButton* report_;
  QPushButton* next_;

  // The lesson being trained.
  bool running_ = false;  ///< set only by setRunning()
  bool stopping_ = false;
  /// The attempt being trained, or the last one: its jobs, results, runs and verdict.
  std::optional<LessonSession> session_;
  /// The records of the job the controller trains now; null when its run is not the
  /// lesson's. Written on the training thread, read here once the run has finished.
  std::shared_ptr<LessonRecorder> recorder_;
  QElapsedTimer clock_;  ///< since the lesson started
};

}  // namespace accumlab::ui
