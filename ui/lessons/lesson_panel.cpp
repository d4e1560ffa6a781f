// SPDX-License-Identifier: GPL-3.0-or-later
#include "lessons/lesson_panel.h"

#include <QComboBox>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QStackedWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <exception>

#include "accumlab/lesson_store.h"
#include "accumlab/run_store.h"
#include "controller/training_controller.h"
#include "files/file_dialogs.h"
#include "lessons/lesson_text.h"
#include "report/html_report.h"

namespace accumlab::ui {

namespace {

constexpr int kMarkRole = Qt::UserRole + 1;

/// A word-wrapped label named `name`, its font `scale` times the usual size, bold if asked.
QLabel* textLabel(const char* name, double scale = 1.0, bool bold = false) {
  auto* label = new QLabel;
  label->setObjectName(name);
  label->setWordWrap(true);
  QFont font = label->font();
  font.setPointSizeF(font.pointSizeF() * scale);
  font.setBold(bold);
  label->setFont(font);
  return label;
}

}  // namespace

LessonPanel::LessonPanel(TrainingController* controller, QWidget* parent)
    : QWidget(parent), controller_(controller) {
  setObjectName("lessonPanel");
  list_ = new QListWidget;
  list_->setObjectName("lessonList");
  list_->setMinimumWidth(180);
  list_->setWordWrap(true);
  list_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  list_->setSpacing(2);

  title_ = textLabel("lessonTitle", 1.5, true);
  text_ = textLabel("lessonText", 1.15);
  text_->setTextFormat(Qt::PlainText);
  plots_hint_ = textLabel("lessonPlotsHint");
  question_ = textLabel("lessonQuestion", 1.0, true);
  number_ = new QLineEdit;
  number_->setObjectName("lessonPredictionNumber");
  number_->setPlaceholderText(tr("a number"));
  unit_ = new QLabel;
  auto* number_row = new QWidget;
  auto* number_layout = new QHBoxLayout(number_row);
  number_layout->setContentsMargins(0, 0, 0, 0);
  number_->setMaximumWidth(200);
  number_layout->addWidget(number_);
  number_layout->addWidget(unit_);
  number_layout->addStretch(1);
  choice_ = new QComboBox;
  choice_->setObjectName("lessonPredictionChoice");
  answer_ = new QStackedWidget;
  answer_->addWidget(number_row);
  answer_->addWidget(choice_);
  answer_->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Maximum);

  run_ = new QPushButton(tr("Run lesson"));
  run_->setObjectName("lessonRun");
  run_->setToolTip(
      tr("Train the lesson's runs one after the other (the Live tab shows each), then check them"));
  stop_ = new QPushButton(tr("Stop"));
  stop_->setEnabled(false);
  next_ = new QPushButton(tr("Next lesson ›"));
  next_->setObjectName("lessonNext");
  show_runs_ = new QPushButton(tr("Show runs"));
  show_runs_->setObjectName("lessonShowRuns");
  show_runs_->setEnabled(false);
  show_runs_->setToolTip(
      tr("Open the lesson's stored runs in the Live tab (a sweep in the Sweeps tab)"));
  report_ = new QPushButton(tr("Report…"));
  report_->setObjectName("lessonReport");
  report_->setEnabled(false);
  report_->setToolTip(
      tr("Save a one-file HTML report of this attempt: the verdict, the runs and their plots"));
  // Two rows, so that the text column stays narrow enough for a 1024×768 screen with the
  // Experiment panel open: what to do now, then what to do with the result.
  auto* buttons = new QGridLayout;
  buttons->addWidget(run_, 0, 0);
  buttons->addWidget(stop_, 0, 1);
  buttons->addWidget(next_, 0, 3);
  buttons->addWidget(show_runs_, 1, 0);
  buttons->addWidget(report_, 1, 1);
  buttons->setColumnStretch(2, 1);

  progress_ = textLabel("lessonProgress");
  card_ = textLabel("lessonVerdict");
  card_->setTextFormat(Qt::RichText);
  card_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  card_->setFrameShape(QFrame::StyledPanel);
  card_->setMargin(10);
  card_->setHidden(true);

  auto* detail = new QWidget;
  auto* column = new QVBoxLayout(detail);
  column->addWidget(title_);
  column->addWidget(text_);
  column->addWidget(plots_hint_);
  column->addSpacing(8);
  column->addWidget(question_);
  column->addWidget(answer_);
  column->addLayout(buttons);
  column->addWidget(progress_);
  column->addWidget(card_);
  column->addStretch(1);
  auto* scroll = new QScrollArea;
  scroll->setObjectName("lessonScroll");
  scroll->setWidget(detail);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);

  auto* split = new QSplitter;
  split->addWidget(list_);
  split->addWidget(scroll);
  split->setStretchFactor(1, 1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(split);

  connect(list_, &QListWidget::currentRowChanged, this, [this] { showLesson(); });
  connect(run_, &QPushButton::clicked, this, [this] { startLesson(); });
  connect(stop_, &QPushButton::clicked, this, &LessonPanel::stopLesson);
  connect(next_, &QPushButton::clicked, this, [this] {
    if (list_->currentRow() + 1 < list_->count()) list_->setCurrentRow(list_->currentRow() + 1);
  });
  connect(show_runs_, &QPushButton::clicked, this, [this] {
    if (!session_) return;
    if (session_->sweepId() > 0) {
      emit showSweepRequested(session_->sweepId());
    } else if (!session_->runIds().empty()) {
      emit showRunsRequested(session_->runIds());
    }
  });
  connect(report_, &QPushButton::clicked, this, [this] {
    const QString path =
        file_dialogs::saveFile(this, tr("Save the lesson's report"), "accumlab-lesson.html",
                               tr("HTML files (*.html);;All files (*)"));
    if (!path.isEmpty() && saveReport(path)) emit statusChanged(tr("Saved %1").arg(path));
  });
  connect(controller_, &TrainingController::finished, this, &LessonPanel::onFinished);
  loadDirectory(QString::fromStdString(lessonDirectory()));
}

void LessonPanel::setStore(RunStore* store, StoredRunsFn stored_runs) {
  store_ = store;
  stored_runs_ = std::move(stored_runs);
  refreshMarks();
}

void LessonPanel::loadDirectory(const QString& directory) {
  entries_.clear();
  list_->clear();
  for (const std::string& file : lessonFiles(directory.toStdString())) {
    Entry e;
    e.file = QString::fromStdString(file);
    try {
      e.lesson = loadLessonFile(file);
    } catch (const std::exception& ex) {
      e.problem = QString::fromStdString(ex.what());
    }
    entries_.push_back(std::move(e));
  }
  refreshMarks();
  if (!entries_.empty()) list_->setCurrentRow(0);
}

bool LessonPanel::openLessonFile(const QString& path) {
  try {
    Entry e;
    e.file = path;
    e.lesson = loadLessonFile(path.toStdString());
    for (size_t i = 0; i < entries_.size(); ++i) {
      if (QFileInfo(entries_[i].file) == QFileInfo(path)) {  // opened again: read it afresh
        entries_[i] = std::move(e);
        refreshMarks();
        list_->setCurrentRow(static_cast<int>(i));
        showLesson();
        return true;
      }
    }
    entries_.push_back(std::move(e));
  } catch (const std::exception& ex) {
    emit errorOccurred(QString::fromStdString(ex.what()));
    return false;
  }
  refreshMarks();
  list_->setCurrentRow(static_cast<int>(entries_.size()) - 1);
  return true;
}

bool LessonPanel::openLesson(const QString& which) {
  QString file;
  try {
    file = QString::fromStdString(findLessonFile(which.toStdString()));
  } catch (const std::exception& ex) {
    emit errorOccurred(QString::fromStdString(ex.what()));
    return false;
  }
  return openLessonFile(file);
}

void LessonPanel::selectLesson(int row) { list_->setCurrentRow(row); }
int LessonPanel::lessonCount() const { return static_cast<int>(entries_.size()); }
int LessonPanel::currentRow() const { return list_->currentRow(); }

void LessonPanel::setPrediction(const QString& text) {
  number_->setText(text);
  const int index = choice_->findText(text, Qt::MatchFixedString);
  if (index >= 0) choice_->setCurrentIndex(index);
}

void LessonPanel::refreshMarks() {
  std::map<std::string, bool> latest;  // lesson id → every check held in the latest attempt
  if (store_) {
    try {
      for (const LessonResultRow& row : LessonStore(*store_).list())
        latest.try_emplace(row.lesson_id, row.all_hold);
    } catch (const std::exception&) {
      // The marks are a convenience; the store reports its problems where it is used.
    }
  }
  const int current = list_->currentRow();
  const QSignalBlocker block(list_);
  list_->clear();
  for (size_t i = 0; i < entries_.size(); ++i) {
    const Entry& e = entries_[i];
    QString mark = QStringLiteral("   ");
    QString label;
    if (e.lesson) {
      if (const auto it = latest.find(e.lesson->id); it != latest.end()) {
        mark = it->second ? QStringLiteral("✓ ") : QStringLiteral("✗ ");
      }
      label = QStringLiteral("%1%2. %3")
                  .arg(mark)
                  .arg(i + 1)
                  .arg(QString::fromStdString(e.lesson->title));
    } else {
      label = QStringLiteral("⚠ %1").arg(QFileInfo(e.file).fileName());
    }
    auto* item = new QListWidgetItem(label, list_);
    item->setToolTip(e.problem.isEmpty() ? e.file : e.problem);
    item->setData(kMarkRole, mark.trimmed());
  }
  list_->setCurrentRow(current >= 0 && current < list_->count() ? current
                                                                : (list_->count() > 0 ? 0 : -1));
  showLesson();  // the blocker kept currentRowChanged from doing it
}

void LessonPanel::showLesson() {
  const int row = list_->currentRow();
  const bool valid = row >= 0 && row < lessonCount() && entries_[static_cast<size_t>(row)].lesson;
  run_->setEnabled(valid && !running_);
  next_->setEnabled(row + 1 < list_->count());
  if (row < 0 || row >= lessonCount()) {
    title_->clear();
    text_->clear();
    question_->hide();
    answer_->hide();
    return;
  }
  const Entry& e = entries_[static_cast<size_t>(row)];
  if (!e.lesson) {
    shown_file_ = e.file;
    title_->setText(QFileInfo(e.file).fileName());
    text_->setText(e.problem);
    plots_hint_->clear();
    question_->hide();
    answer_->hide();
    return;
  }
  const Lesson& l = *e.lesson;
  const bool changed = e.file != shown_file_;
  shown_file_ = e.file;
  title_->setText(QString::fromStdString(l.title));
  text_->setText(QString::fromStdString(l.text));
  plots_hint_->setText(lessonPlanText(l));
  const bool asks = l.prediction.has_value();
  question_->setVisible(asks);
  answer_->setVisible(asks);
  if (asks && changed) {
    const LessonPrediction& p = *l.prediction;
    question_->setText(tr("Predict before you run: %1").arg(QString::fromStdString(p.question)));
    if (p.kind == LessonPrediction::Kind::kNumber) {
      answer_->setCurrentIndex(0);
      number_->clear();
      unit_->setText(QString::fromStdString(p.unit));
    } else {
      answer_->setCurrentIndex(1);
      choice_->clear();
      choice_->addItem(tr("— choose one —"));
      for (const auto& c : p.choices) choice_->addItem(QString::fromStdString(c.text));
    }
  }
  if (!running_) {
    // The verdict card belongs to the lesson it was given for.
    const bool own = verdict() && verdict()->lesson_id == l.id;
    card_->setHidden(!own);
    show_runs_->setEnabled(own && (session_->sweepId() > 0 || !session_->runIds().empty()));
    report_->setEnabled(own && session_->resultId() > 0 && store_ != nullptr);
    if (changed) progress_->clear();
  }
}

QString LessonPanel::prediction() const {
  if (answer_->isHidden()) return QString();
  if (answer_->currentIndex() == 0) return number_->text().trimmed();
  return choice_->currentIndex() > 0 ? choice_->currentText() : QString();
}

bool LessonPanel::startLesson() {
  const int row = list_->currentRow();
  if (running_ || row < 0 || row >= lessonCount() || !entries_[static_cast<size_t>(row)].lesson)
    return false;
  if (controller_->isRunning()) {
    emit errorOccurred(tr("Stop the running experiment before starting a lesson."));
    return false;
  }
  try {
    // A prediction that is not a number or not a choice, or a run that would read the store,
    // is refused before anything trains (core's LessonSession, as the CLI's lesson run); the
    // last attempt stays until a new one starts.
    session_ = LessonSession(*entries_[static_cast<size_t>(row)].lesson, prediction().toStdString(),
                             store_);
  } catch (const std::exception& e) {
    emit errorOccurred(QString::fromStdString(e.what()));
    return false;
  }
  setRunning(true);
  stopping_ = false;
  card_->setHidden(true);
  show_runs_->setEnabled(false);
  run_->setEnabled(false);
  stop_->setEnabled(true);
  list_->setEnabled(false);
  clock_.start();
  startJob();
  return running_;
}

void LessonPanel::startJob() {
  const size_t index = session_->next();
  const std::vector<LessonJob>& jobs = session_->jobs();
  const LessonJob& job = jobs[index];
  progress_->setText(tr("Run %1 of %2: %3")
                         .arg(index + 1)
                         .arg(jobs.size())
                         .arg(QString::fromStdString(job.label)));
  emit statusChanged(tr("Lesson: run %1 of %2").arg(index + 1).arg(jobs.size()));
  recorder_ = std::make_shared<LessonRecorder>(job.id);
  if (!controller_->start(job.config, job.target, recorder_)) {
    recorder_.reset();
    setRunning(false);
    stop_->setEnabled(false);
    list_->setEnabled(true);
    progress_->setText(tr("The lesson could not start its run."));
    showLesson();
    return;
  }
  if (index == 0) emit lessonRunStarted();
}

void LessonPanel::stopLesson() {
  if (!running_) return;
  stopping_ = true;
  controller_->stop();
}

void LessonPanel::onFinished(const QString& error, bool) {
  if (!recorder_) return;  // not the lesson's run
  // The training thread has ended the run, so its records are all in the recorder.
  LessonRunResult result = std::move(recorder_->result());
  recorder_.reset();
  // The runs the window's store sink wrote for this job, as the sink itself reports them.
  if (store_ && stored_runs_) {
    for (const StoredRun& run : stored_runs_()) result.stored_run_ids.push_back(run.run_id);
  }
  try {
    session_->jobFinished(std::move(result), stopping_);  // and its sweep point
  } catch (const std::exception& e) {
    emit errorOccurred(QString::fromStdString(e.what()));
  }
  if (!error.isEmpty() || stopping_) {
    setRunning(false);
    stop_->setEnabled(false);
    list_->setEnabled(true);
    progress_->setText(error.isEmpty() ? tr("Stopped before the lesson's runs ended: no verdict.")
                                       : tr("A run failed: %1").arg(error));
    emit statusChanged(tr("Lesson stopped"));
    showLesson();
    return;
  }
  // The next run starts after every other slot of this finished() (the window's) has run.
  QTimer::singleShot(0, this, [this] {
    if (!session_->done()) {
      startJob();
    } else {
      finishLesson();
    }
  });
}

void LessonPanel::setRunning(bool running) {
  if (running == running_) return;
  running_ = running;
  emit runningChanged(running);
}

void LessonPanel::finishLesson() {
  setRunning(false);
  stop_->setEnabled(false);
  list_->setEnabled(true);
  try {
    session_->finish();  // the verdict, and the stored attempt
  } catch (const std::exception& e) {
    emit errorOccurred(QString::fromStdString(e.what()));
  }
  refreshMarks();
  if (verdict()) {
    showVerdict();
    const double seconds = static_cast<double>(clock_.elapsed()) / 1000.0;
    const size_t runs = session_->jobs().size();
    progress_->setText(runs == 1 ? tr("1 run in %1 s.").arg(seconds, 0, 'f', 1)
                                 : tr("%1 runs in %2 s.").arg(runs).arg(seconds, 0, 'f', 1));
    emit statusChanged(verdict()->allHold() ? tr("Lesson: every check holds")
                                            : tr("Lesson: not every check holds"));
    emit lessonFinished(verdict()->allHold());
  }
  showLesson();
}

void LessonPanel::showVerdict() {
  card_->setText(verdictCardHtml(*verdict(), session_->lesson().prediction.has_value()));
  card_->setHidden(false);
  const bool sweep = session_->sweepId() > 0;
  show_runs_->setEnabled(sweep || !session_->runIds().empty());
  show_runs_->setText(sweep ? tr("Show sweep") : tr("Show runs"));
}

bool LessonPanel::saveReport(const QString& path) {
  const int64_t result_id = session_ ? session_->resultId() : 0;
  if (!store_ || result_id == 0) {
    emit errorOccurred(
        tr("There is no stored lesson attempt to report: run a lesson with a run database open."));
    return false;
  }
  QString error;
  try {
    if (writeLessonReport(*store_, LessonStore(*store_).get(result_id), path, &error)) return true;
  } catch (const std::exception& e) {
    error = QString::fromStdString(e.what());
  }
  emit errorOccurred(error);
  return false;
}

const std::optional<LessonVerdict>& LessonPanel::verdict() const {
  static const std::optional<LessonVerdict> kNone;
  return session_ ? session_->verdict() : kNone;
}

const std::vector<int64_t>& LessonPanel::runIds() const {
  static const std::vector<int64_t> kNone;
  return session_ ? session_->runIds() : kNone;
}

QString LessonPanel::verdictText() const { return card_->isHidden() ? QString() : card_->text(); }

}  // namespace accumlab::ui
