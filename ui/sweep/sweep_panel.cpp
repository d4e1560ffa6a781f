// SPDX-License-Identifier: GPL-3.0-or-later
#include "sweep/sweep_panel.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileInfo>
#include <QFormLayout>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QSplitter>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QThread>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <csignal>

#include <qcustomplot.h>
#include "accumlab/input_error.h"
#include "accumlab/run_store.h"
#include "accumlab/sweep.h"
#include "accumlab/sweep_check.h"
#include "accumlab/sweep_grid.h"
#include "accumlab/sweep_store.h"
#include "controller/cli_path.h"
#include "files/file_dialogs.h"
#include "plots/plot_exporter.h"
#include "sweep/sweep_plots.h"
#include "sweep/sweep_report.h"
#include "sweep/sweep_thread.h"

#include "series/number_text.h"
#include "series/store_watch.h"
#include "widgets/named.h"

namespace accumlab::ui {

namespace {
/// Rows of the points' table on screen at the least.
constexpr int kTableRowsShown = 5;
}  // namespace

namespace {

/// The comma-separated numbers of a grid field ("8, 16,32"); empty for an empty field. Throws
/// InputError naming the field for anything else, or a number that is not positive.
template <typename T>
std::vector<T> numberList(const QString& text, const QString& field) {
  std::vector<T> values;
  for (const QString& part : text.split(',', Qt::SkipEmptyParts)) {
    bool ok = false;
    const double value = part.trimmed().toDouble(&ok);
    if (!ok || !(value > 0) || (std::is_integral_v<T> && value != std::floor(value))) {
      throw InputError(
          QObject::tr("The %1 \"%2\" are not a list of positive %3 such as %4.")
              .arg(field, text,
                   std::is_integral_v<T> ? QObject::tr("whole numbers") : QObject::tr("numbers"),
                   std::is_integral_v<T> ? "8,16,32" : "0.01,0.03")
              .toStdString());
    }
    values.push_back(static_cast<T>(value));
  }
  return values;
}

}  // namespace

SweepPanel::SweepPanel(std::function<ExperimentConfig()> experiment, QWidget* parent)
    : QWidget(parent), experiment_(std::move(experiment)) {
  sweep_ = new SweepThread(
      [this](const SweepEvent& e) { onSweepEvent(e); },
      [this](const QString& error, bool stopped) { onSweepEnded(error, stopped); }, this);
  setObjectName("sweepPanel");
  // A sweep another program runs on the store (accumlab-cli sweep, a cluster's points merged
  // in) shows without Refresh; the panel's own sweep refreshes it as its events arrive.
  watch_ =
      new StoreWatch([this] { return store_ != nullptr && isVisible() && !isRunning(); }, this);
  connect(watch_, &StoreWatch::changed, this, &SweepPanel::refresh);
  auto* layout = new QVBoxLayout(this);

  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel(tr("Sweep"), this));
  picker_ = named(new QComboBox(this), "sweepPicker");
  picker_->setMinimumContentsLength(20);
  top->addWidget(picker_, 1);
  auto* refresh = new QPushButton(tr("Refresh"), this);
  top->addWidget(refresh);
  auto* report = new QPushButton(tr("Report…"), this);
  report->setObjectName("sweepReport");
  report->setToolTip(
      tr("Save the shown sweep as a one-file HTML report: its points, fits and "
         "plots"));
  top->addWidget(report);
  auto* images = new QPushButton(tr("Plots…"), this);
  images->setToolTip(tr("Save the shown sweep's plots as PNG, SVG or PDF files into a folder"));
  top->addWidget(images);
  layout->addLayout(top);

  // Two rows, so that the B list shows whole on a 1024×768 screen: what to train, then how.
  auto* grid = new QGridLayout;
  batches_ = named(new QLineEdit("8,16,32,64,128,256,512,1024", this), "sweepBatches",
                   tr("Effective batches B = m·K to train, comma-separated"));
  micro_ = named(
      new QLineEdit("32", this), "sweepMicroBatch",
      tr("Micro-batch sizes m, comma-separated: each B runs with each m and K = B/m (a B below m "
         "is one batch of B). Several m at one B show memory against speed for the same update."));
  micro_->setMaximumWidth(120);
  lrs_ =
      named(new QLineEdit(this), "sweepLrs",
            tr("Learning rates to try at each B, comma-separated; each B is fitted at its best"));
  lrs_->setPlaceholderText(tr("the experiment's"));
  target_ = named(new QDoubleSpinBox(this), "sweepTarget",
                  tr("Target: the smoothed training loss each point trains down to"));
  target_->setDecimals(3);
  target_->setRange(0.001, 100);
  target_->setValue(0.55);
  jobs_ = named(new QSpinBox(this), "sweepJobs", tr("Points trained at once, one thread each"));
  jobs_->setRange(1, 64);
  jobs_->setValue(std::max(1, QThread::idealThreadCount()));
  recipe_ = named(new QComboBox(this), "sweepRecipe");
  // As narrow as "accum (right)": the longest recipe's name would widen the tab past 1024 px
  // (its list still shows whole).
  recipe_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  recipe_->setMinimumContentsLength(12);
  recipe_->addItem(tr("accum (right)"), QString::fromStdString(toString(ArmKind::kAccum)));
  for (const ArmKind arm : pitfallArms()) {
    const QString name = QString::fromStdString(toString(arm));
    recipe_->addItem(name, name);
  }
  recipe_->setToolTip(
      tr("The recipe every point trains: accum, the right one, or a common mistake (Help → "
         "Common mistakes), to see how the mistake moves the steps to the target"));
  run_ = named(new QPushButton(tr("Run sweep"), this), "runSweep",
               tr("Train every B of the grid on the experiment in the left panel (its data, model, "
                  "optimizer, LR rule and budget per point) until the target"));
  stop_ = new QPushButton(tr("Stop"), this);
  stop_->setEnabled(false);
  micro_->setMaximumWidth(QWIDGETSIZE_MAX);
  grid->addWidget(new QLabel(tr("B"), this), 0, 0);
  grid->addWidget(batches_, 0, 1, 1, 3);
  grid->addWidget(new QLabel(tr("m"), this), 0, 4);
  grid->addWidget(micro_, 0, 5);
  grid->addWidget(new QLabel(tr("LR"), this), 0, 6);
  grid->addWidget(lrs_, 0, 7, 1, 2);
  grid->addWidget(new QLabel(tr("target loss"), this), 1, 0, 1, 2, Qt::AlignLeft);
  grid->addWidget(target_, 1, 2);
  grid->addWidget(recipe_, 1, 3);
  grid->addWidget(new QLabel(tr("jobs"), this), 1, 4);
  grid->addWidget(jobs_, 1, 5);
  grid->addWidget(run_, 1, 7);
  grid->addWidget(stop_, 1, 8);
  grid->setColumnStretch(1, 3);
  grid->setColumnStretch(5, 1);
  grid->setColumnStretch(7, 2);
  layout->addLayout(grid);

  summary_ = named(new QLabel(this), "sweepSummary");
  summary_->setWordWrap(true);
  summary_->setTextFormat(Qt::RichText);
  layout->addWidget(summary_);

  auto* split = new QSplitter(Qt::Vertical, this);
  // The plots keep a readable height and scroll, rather than shrink, on a small screen.
  auto* scroll = new QScrollArea(split);
  scroll->setObjectName("sweepPlotsScroll");
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  plots_ = new SweepPlots(scroll);
  scroll->setWidget(plots_);
  table_ = named(new QTableWidget(split), "sweepPoints");
  table_->setColumnCount(10);
  table_->setHorizontalHeaderLabels(
      {tr("B"), tr("m × K"), tr("LR"), tr("status"), tr("steps to target"), tr("samples to target"),
       tr("loss variance"), tr("peak tensors"), tr("samples/s"), tr("B_simple")});
  table_->verticalHeader()->setVisible(false);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  split->addWidget(scroll);
  split->addWidget(table_);
  // The table shows a few points whatever the screen (it showed one row until the handle was
  // found and dragged), and the handle can be seen and grabbed.
  table_->setMinimumHeight(table_->horizontalHeader()->sizeHint().height() +
                           kTableRowsShown * table_->verticalHeader()->defaultSectionSize() + 4);
  split->setChildrenCollapsible(false);
  split->setHandleWidth(8);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  layout->addWidget(split, 1);

  connect(refresh, &QPushButton::clicked, this, &SweepPanel::refresh);
  connect(report, &QPushButton::clicked, this, [this] {
    if (!store_ || shownSweep() <= 0) return;
    const QString path =
        file_dialogs::saveFile(this, tr("Save the sweep's report"),
                               QString("sweep-%1.html").arg(shownSweep()), tr("HTML (*.html)"));
    if (!path.isEmpty()) saveReport(path);
  });
  connect(images, &QPushButton::clicked, this, [this] {
    if (shownSweep() <= 0) return;
    const QString folder = file_dialogs::folder(this, tr("Save the sweep's plots into"));
    if (!folder.isEmpty()) savePlots(folder, "png");
  });
  connect(picker_, qOverload<int>(&QComboBox::activated), this,
          [this](int i) { showSweep(picker_->itemData(i).toLongLong()); });
  connect(run_, &QPushButton::clicked, this, &SweepPanel::startSweep);
  connect(stop_, &QPushButton::clicked, this, &SweepPanel::stopSweep);
}

// The sweep thread (a child) asks its points to stop and waits for their ends to be stored.
SweepPanel::~SweepPanel() = default;

void SweepPanel::setStore(RunStore* store, const QString& path) {
  store_ = store;
  db_path_ = path;
  watch_->follow(store ? store->path() : std::string());
  run_->setEnabled(store_ != nullptr && !isRunning());
  refresh();
}

void SweepPanel::refresh() {
  const int64_t shown = shownSweep();
  picker_->clear();
  std::vector<SweepRow> rows;
  if (store_) {
    try {
      rows = SweepStore(*store_).list();
    } catch (const std::exception& e) {
      emit errorOccurred(QString::fromStdString(e.what()));
    }
  }
  for (const SweepRow& r : rows) {
    QString text =
        tr("%1 · %2 · %3 points, %4 reached · %5")
            .arg(r.id)
            .arg(QString::fromStdString(r.name.empty() ? r.created_at : r.name))
            .arg(r.points)
            .arg(r.reached)
            .arg(QString::fromStdString(describeTarget(sweepTargetFromSpec(r.spec_json))));
    if (const ArmKind arm = sweepArmFromSpec(r.spec_json); arm != ArmKind::kAccum) {
      text += tr(" · %1").arg(QString::fromStdString(toString(arm)));
    }
    picker_->addItem(text, QVariant::fromValue<qlonglong>(r.id));
  }
  if (rows.empty()) {
    summary_->setText(store_ ? tr("No sweeps yet: set the grid above and press Run sweep.")
                             : tr("No run database is open."));
    table_->setRowCount(0);
    return;
  }
  showSweep(shown > 0 ? shown : rows.front().id);
}

int64_t SweepPanel::shownSweep() const {
  return picker_->currentIndex() >= 0 ? picker_->currentData().toLongLong() : 0;
}

void SweepPanel::showSweep(int64_t id) {
  if (!store_ || id <= 0) return;
  const int index = picker_->findData(QVariant::fromValue<qlonglong>(id));
  if (index >= 0) picker_->setCurrentIndex(index);
  SweepDetail sweep;
  try {
    sweep = SweepStore(*store_).get(id);
  } catch (const std::exception& e) {
    emit errorOccurred(QString::fromStdString(e.what()));
    return;
  }
  const SweepAnalysis a = analyzeSweep(sweep.points);
  plots_->setSweep(sweep, a);
  QString text;
  if (a.steps_fit) {
    text = tr("<b>Critical batch</b> B_crit = E_min/S_min = %1 (S_min = %2 steps, E_min = %3 "
              "samples, R² = %4) · <b>noise scale</b> B_simple = %5")
               .arg(numberText(a.steps_fit->b_crit, 4), numberText(a.steps_fit->s_min, 4),
                    numberText(a.steps_fit->e_min, 5), numberText(a.steps_fit->r2, 3),
                    numberText(a.b_simple, 4));
  } else {
    text = tr("Steps to target: no fit yet (%1)").arg(QString::fromStdString(a.steps_fit_error));
  }
  if (a.variance_slope) {
    text +=
        tr(" · loss variance ∝ B^%1 [%2, %3] (theory −1)")
            .arg(numberText(a.variance_slope->slope, 3), numberText(a.variance_slope->ci_low, 3),
                 numberText(a.variance_slope->ci_high, 3));
  }
  summary_->setText(text);
  table_->setRowCount(static_cast<int>(sweep.points.size()));
  for (int row = 0; row < static_cast<int>(sweep.points.size()); ++row) {
    const SweepPoint& p = sweep.points[static_cast<size_t>(row)];
    const QStringList cells = {
        QString::number(p.effectiveBatch()),
        QString("%1 × %2").arg(p.micro_batch).arg(p.accum),
        numberText(p.lr, 4),
        QString::fromStdString(toString(p.status)),
        numberText(p.steps_to_target, 4),
        numberText(p.samples_to_target, 6),
        numberText(p.loss_variance, 4),
        p.peak_tensor_bytes >= 0 ? QString::number(p.peak_tensor_bytes / 1048576.0, 'f', 1) + " MiB"
                                 : QStringLiteral("–"),
        numberText(p.samples_per_s, 6),
        numberText(p.b_simple, 4)};
    for (int col = 0; col < cells.size(); ++col) {
      auto* item = new QTableWidgetItem(cells[col]);
      if (!p.message.empty()) item->setToolTip(QString::fromStdString(p.message));
      table_->setItem(row, col, item);
    }
  }
}

bool SweepPanel::saveReport(const QString& path) {
  QString error;
  try {
    if (RunStore::wouldOverwrite(store_->path(), path.toStdString())) {
      error = tr("Cannot write the report to %1: it is the run database.").arg(path);
    } else if (writeSweepReport(SweepStore(*store_).get(shownSweep()), path, &error)) {
      return true;
    }
  } catch (const std::exception& e) {
    error = QString::fromStdString(e.what());
  }
  emit errorOccurred(error);
  return false;
}

bool SweepPanel::savePlots(const QString& folder, const QString& format) {
  for (int i = 0; i < plots_->count(); ++i) {
    QCustomPlot* plot = plots_->plot(i);
    QString error;
    if (!exportPlot(plot, plot->objectName(),
                    QDir(folder).filePath(plot->objectName() + "." + format), &error)) {
      emit errorOccurred(error);
      return false;
    }
  }
  return true;
}

bool SweepPanel::startSweep() {
  if (isRunning()) return false;
  if (!store_) {
    emit errorOccurred(
        tr("Open a run database first (File → Run database…): a sweep stores its runs."));
    return false;
  }
  SweepRequest request;
  try {
    request.base = experiment_();
    request.base.threads = 1;  // the workers share the cores
    request.base.arms = {parseArmKind(recipe_->currentData().toString().toStdString())};
    SweepGrid grid;
    grid.effective_batches = numberList<int64_t>(batches_->text(), tr("effective batches B"));
    grid.micro_batches = numberList<int64_t>(micro_->text(), tr("micro-batches m"));
    grid.lrs = numberList<double>(lrs_->text(), tr("learning rates"));
    request.points = buildSweepGrid(request.base, grid);
    checkSweepPoints(request.base, request.points, db_path_.toStdString());
  } catch (const std::exception& e) {
    emit errorOccurred(QString::fromStdString(e.what()));
    return false;
  }
  const QString cli = accumlabCliPath();
  if (cli.isEmpty()) {
    emit errorOccurred(
        tr("Cannot find accumlab-cli next to the app or on the PATH; it trains "
           "the sweep's points."));
    return false;
  }
  request.target.kind = SweepTarget::Kind::kLoss;
  request.target.value = target_->value();
  request.jobs = jobs_->value();
  request.store_path = db_path_.toStdString();
  request.program = cli.toStdString();
  running_sweep_ = 0;
  sweep_->start(std::move(request));
  run_->setEnabled(false);
  stop_->setEnabled(true);
  emit statusChanged(tr("Sweep starting…"));
  return true;
}

bool SweepPanel::isRunning() const { return sweep_->isRunning(); }

void SweepPanel::stopSweep() { sweep_->requestStop(); }

void SweepPanel::onSweepEvent(const SweepEvent& e) {
  using Kind = SweepEvent::Kind;
  {
    switch (e.kind) {
      case Kind::kSweepStarted:
        running_sweep_ = e.sweep;
        if (shownSweep() != e.sweep) refresh();  // the new sweep joins the picker
        showSweep(e.sweep);
        emit statusChanged(tr("Sweep %1 started").arg(e.sweep));
        break;
      case Kind::kPointStarted:
        break;
      case Kind::kPointFinished:
        if (shownSweep() == e.sweep) showSweep(e.sweep);
        emit statusChanged(tr("Sweep: %1 of %2 points done").arg(e.done).arg(e.total));
        break;
      case Kind::kSweepFinished:
        if (shownSweep() != e.sweep) refresh();
        break;
      case Kind::kError:
        break;
    }
  }
}

void SweepPanel::onSweepEnded(const QString& error, bool stopped) {
  run_->setEnabled(store_ != nullptr);
  stop_->setEnabled(false);
  refresh();
  if (!error.isEmpty()) emit errorOccurred(tr("The sweep ended with an error: %1").arg(error));
  emit statusChanged(stopped ? tr("Sweep stopped") : tr("Sweep finished"));
}

}  // namespace accumlab::ui
