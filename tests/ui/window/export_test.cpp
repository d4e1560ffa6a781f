// SPDX-License-Identifier: GPL-3.0-or-later
// Every export writes a file that parses: runs CSV/JSON, plots PNG/SVG/PDF, the HTML report.
#include <qcustomplot.h>

#include <QDir>
#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>
#include <cmath>

#include "accumlab/run_store.h"
#include "accumlab/trainer.h"
#include "plots/metric_canvas.h"
#include "plots/plot_grid.h"
#include "report/html_report.h"
#include "runs/run_loader.h"
#include "runs/runs_panel.h"
#include "series/live_run.h"
#include "series/shown_runs.h"
#include "ui_test_support.h"
#include "window/export_actions.h"

using namespace accumlab;
using namespace accumlab::ui;

namespace {
QByteArray readAll(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

/// `run`'s steps as the one batch a live run would take.
RecordBatch batchOf(const RunData& run) {
  RecordBatch b;
  b.started = run.info;
  for (const ArmSeries& arm : run.arms) {
    b.steps.insert(b.steps.end(), arm.steps.begin(), arm.steps.end());
  }
  return b;
}
}  // namespace

class ExportTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    test::isolateSettings();
    QVERIFY(dir_.isValid());
    db_ = dir_.filePath("runs.sqlite").toStdString();
    StoreSink sink(db_);
    Trainer(test::smallExperiment(2048)).run(sink);
    store_ = std::make_unique<RunStore>(db_);
    for (const RunRow& r : store_->listRuns()) ids_.push_back(r.id);
    shown_ = std::make_unique<ShownRuns>();
    plots_ = std::make_unique<PlotGrid>(shown_.get());
    plots_->resize(1200, 700);
    shown_->showStored(loadExperiments(*store_, ids_));
    runs_ = std::make_unique<RunsPanel>();
    runs_->setStore(store_.get());
    window_ = std::make_unique<QWidget>();
    actions_ = std::make_unique<ExportActions>(window_.get(), plots_.get(), shown_.get(),
                                               runs_.get(), [this] { return store_.get(); });
    connect(actions_.get(), &ExportActions::errorOccurred, this,
            [](const QString& m) { qWarning("%s", qPrintable(m)); });
  }

  void runsExportToCsvThatParses() {
    const QString path = dir_.filePath("runs.csv");
    QVERIFY(actions_->exportRunsTo(ids_, ExportFormat::kCsv, path));
    const QList<QByteArray> lines = readAll(path).trimmed().split('\n');
    // A header and one row per step of each arm: 2048/8 + 2 × 2048/32.
    QCOMPARE(lines.size(), 1 + 256 + 64 + 64);
    const int columns = static_cast<int>(lines.front().count(',')) + 1;
    QVERIFY(lines.front().startsWith("run_id,"));
    for (const QByteArray& line : lines) QCOMPARE(static_cast<int>(line.count(',')) + 1, columns);
  }

  void runsExportToJsonThatParses() {
    const QString path = dir_.filePath("runs.json");
    QVERIFY(actions_->exportRunsTo(ids_, ExportFormat::kJson, path));
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(readAll(path), &error);
    QCOMPARE(error.error, QJsonParseError::NoError);
    QVERIFY(!doc.isNull());
    QVERIFY(readAll(path).contains("\"metrics\""));
  }

  void runsExportToTensorBoardLogFolders() {
    const QString folder = dir_.filePath("tb");
    QVERIFY(actions_->exportRunsTo(ids_, ExportFormat::kTensorBoard, folder));
    for (const RunRow& row : store_->listRuns()) {
      const QString arm = QString::fromStdString(toString(row.arm));
      const QDir log(folder + QString("/%1-%2").arg(row.id).arg(arm));
      const QStringList files = log.entryList({"events.out.tfevents.*"}, QDir::Files);
      QCOMPARE(files.size(), 1);
      // The first record is TensorBoard's file version.
      QVERIFY(readAll(log.filePath(files.front())).contains("brain.Event:2"));
    }
    // A file where the folder should be is an error, not a crash.
    const QString file = dir_.filePath("not-a-folder");
    QFile(file).open(QIODevice::WriteOnly);
    QVERIFY(!actions_->exportRunsTo(ids_, ExportFormat::kTensorBoard, file));
  }

  void plotExportsParse() {
    MetricCanvas* loss = plots_->canvases().front();
    const QString png = dir_.filePath("loss.png");
    const QString svg = dir_.filePath("loss.svg");
    const QString pdf = dir_.filePath("loss.pdf");
    QVERIFY(actions_->exportPlotTo(loss, png));
    QVERIFY(actions_->exportPlotTo(loss, svg));
    QVERIFY(actions_->exportPlotTo(loss, pdf));
    const QImage image(png);
    QCOMPARE(image.size(), QSize(kExportWidth, kExportHeight));
    QSvgRenderer renderer(svg);
    QVERIFY(renderer.isValid());
    // The file carries the plot's title as drawn text (besides the SVG's <title>) and its
    // axis labels; the plot on screen is left as it was.
    const QByteArray svg_text = readAll(svg);
    QVERIFY2(svg_text.count(loss->definition().title.toUtf8()) >= 2, "no title drawn in the SVG");
    QVERIFY(svg_text.contains("samples seen"));
    QVERIFY(svg_text.contains(">loss<"));
    QCOMPARE(loss->plot()->plotLayout()->rowCount(), 2);  // its legend strip and its pane
    const QByteArray pdf_bytes = readAll(pdf);
    QVERIFY(pdf_bytes.startsWith("%PDF-"));
    QVERIFY(pdf_bytes.trimmed().endsWith("%%EOF"));
  }

  void unknownPlotFormatIsAnError() {
    QVERIFY(!actions_->exportPlotTo(plots_->canvases().front(), dir_.filePath("loss.bmp")));
  }

  void allPlotsExportOneFilePerPlot() {
    const QString folder = dir_.filePath("plots");
    QVERIFY(actions_->exportAllPlotsTo(folder, "svg"));
    for (MetricCanvas* c : plots_->canvases()) {
      QVERIFY(QSvgRenderer(folder + "/" + c->definition().id + ".svg").isValid());
    }
  }

  void htmlReportHoldsTablesAndDecodablePlots() {
    const QString path = dir_.filePath("report.html");
    QVERIFY(actions_->exportReportTo(path));
    const QString html = QString::fromUtf8(readAll(path));
    QVERIFY(html.startsWith("<!DOCTYPE html>"));
    QVERIFY(html.trimmed().endsWith("</html>"));
    QVERIFY(html.contains("no-accum ÷ arm"));  // the ratios against no-accum
    // The arms' own ratios are not paired with K (they sit at different weights).
    QVERIFY(!html.contains("batch ×"));
    QVERIFY(html.contains("micro_batch"));  // the config table
    QVERIFY(html.contains("Window normalisation"));
    // Every embedded image decodes to a PNG of the export size.
    int images = 0;
    int at = 0;
    const QString marker = "data:image/png;base64,";
    while ((at = html.indexOf(marker, at)) >= 0) {
      at += marker.size();
      const int end = html.indexOf('\'', at);
      const QImage img =
          QImage::fromData(QByteArray::fromBase64(html.mid(at, end - at).toLatin1()), "PNG");
      QCOMPARE(img.size(), QSize(kExportWidth, kExportHeight));
      ++images;
    }
    QCOMPARE(images, static_cast<int>(plots_->canvases().size()));
  }

  void offScreenReportMatchesTheSameRuns() {
    const QString path = dir_.filePath("offscreen.html");
    QString error;
    QVERIFY2(writeHtmlReport(loadExperiments(*store_, {ids_.front()}), path, &error),
             qPrintable(error));
    QVERIFY(readAll(path).contains("data:image/png;base64,"));
  }

  void textRunReportShowsWhatEachArmWrote() {
    // A small text run: the lines its arms wrote and its tokens/s reach the store and the report.
    const QString lines = dir_.filePath("lines.txt");
    {
      QFile f(lines);
      QVERIFY(f.open(QIODevice::WriteOnly));
      const char* words[] = {"the", "quick", "brown", "fox", "jumps", "over", "a", "lazy", "dog"};
      for (int i = 0; i < 300; ++i) {
        QByteArray line;
        for (int w = 0; w <= i % 7; ++w) line += QByteArray(words[(i * 5 + w) % 9]) + ' ';
        f.write(line.trimmed() + '\n');
      }
    }
    ExperimentConfig c = test::smallExperiment(256);
    c.data = "text:" + lines.toStdString();
    c.model = "charlm:16";
    c.micro_batch = 4;
    c.accum = 2;
    c.eval_every = 128;
    c.arms = {ArmKind::kAccum, ArmKind::kBigBatch};
    const std::string db = dir_.filePath("text.sqlite").toStdString();
    StoreSink sink(db);
    Trainer(c).run(sink);
    sink.finish();
    RunStore store(db);
    std::vector<int64_t> ids;
    for (const StoredRun& r : sink.runs()) ids.push_back(r.run_id);
    const RunSeries accum = store.series(ids.front());
    QVERIFY(!accum.evals.empty());
    const std::string written = accum.evals.back().text_sample;
    QVERIFY2(!written.empty(), "the stored evaluation lost its line");
    QVERIFY(std::isfinite(accum.steps.back().tokens_per_s));
    const QString path = dir_.filePath("text.html");
    QString error;
    QVERIFY2(writeHtmlReport(loadExperiments(store, ids), path, &error), qPrintable(error));
    const QString html = QString::fromUtf8(readAll(path));
    QVERIFY(html.contains("What each arm writes"));
    QVERIFY2(html.contains(QString::fromStdString(written).toHtmlEscaped()), written.c_str());
    QVERIFY(html.contains("tokens/s"));
  }

  void reportIsOfTheSelectedRuns() {
    // Another experiment, selected in the Runs tab while the first is still plotted.
    ExperimentConfig c = test::smallExperiment(1024);
    c.accum = 2;
    StoreSink sink(db_);
    Trainer(c).run(sink);
    std::vector<int64_t> second;
    for (const StoredRun& r : sink.runs()) second.push_back(r.run_id);
    runs_->refresh();
    runs_->selectRuns(second);
    QCOMPARE(runs_->selectedRunIds().size(), second.size());
    const QString path = dir_.filePath("selected.html");
    QVERIFY(actions_->exportReportTo(path));
    const QString html = QString::fromUtf8(readAll(path));
    const QString first_label = QString::fromStdString(shown_->runs().front()->label);
    const QString ids = QString::fromStdString(loadRuns(*store_, second).front().id_label);
    QVERIFY2(ids.contains(QString::number(second.front())), qPrintable(ids));
    QVERIFY2(html.contains(ids + " · "), "the selected runs are not in the report, by their ids");
    QVERIFY2(!html.contains(first_label.toHtmlEscaped()),
             "the report shows the plotted runs, not the selected ones");
    runs_->selectRuns({});
  }

  void reportWithoutASelectionIsOfTheShownRuns() {
    // Two stored experiments compared, then a live run: the report follows what is shown.
    RunData a = loadExperiments(*store_, ids_).front();
    RunData b = a;
    a.label = "stored alpha";
    b.label = "stored beta";
    shown_->showStored({a, b});
    QCOMPARE(shown_->runs().size(), size_t{2});
    QVERIFY(!plots_->compareKey().isEmpty());
    const QString compared = dir_.filePath("compared.html");
    QVERIFY(actions_->exportReportTo(compared));
    QString html = QString::fromUtf8(readAll(compared));
    QVERIFY2(html.contains("<h2>stored alpha</h2>") && html.contains("<h2>stored beta</h2>"),
             "the report is not of the two runs shown");

    LiveRun live;
    shown_->setLiveRun(&live);
    live.begin("live run gamma");
    QVERIFY(shown_->isLive());
    QCOMPARE(shown_->runs(), std::vector<const RunData*>{&live.data()});
    live.append(batchOf(a));
    QVERIFY(plots_->compareKey().isEmpty());
    const QString live_path = dir_.filePath("live.html");
    QVERIFY(actions_->exportReportTo(live_path));
    html = QString::fromUtf8(readAll(live_path));
    QVERIFY2(html.contains("<h2>live run gamma</h2>"), "the report is not of the live run");
    QVERIFY2(!html.contains("stored alpha") && !html.contains("stored beta"),
             "the report still holds the stored runs the live run replaced");

    shown_->setLiveRun(nullptr);
    shown_->showStored(loadExperiments(*store_, ids_));
  }

  void exportWithoutRunsSelectedOrWritableFolderFails() {
    QVERIFY(!actions_->exportRunsTo(ids_, ExportFormat::kCsv, "/nonexistent-dir/x.csv"));
    QVERIFY(!actions_->exportReportTo("/nonexistent-dir/report.html"));
  }

 private:
  QTemporaryDir dir_;
  std::string db_;
  std::unique_ptr<RunStore> store_;
  std::vector<int64_t> ids_;
  std::unique_ptr<ShownRuns> shown_;
  std::unique_ptr<PlotGrid> plots_;
  std::unique_ptr<RunsPanel> runs_;
  std::unique_ptr<QWidget> window_;
  std::unique_ptr<ExportActions> actions_;
};

QTEST_MAIN(ExportTest)
#include "export_test.moc"
