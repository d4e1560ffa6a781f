// Every export writes a file that parses: runs CSV/JSON, plots PNG/SVG/PDF, the HTML report.
#include <QDir>
#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>
#include <qcustomplot.h>

#include "accumlab/run_store.h"
#include "accumlab/trainer.h"
#include "plots/live_plots.h"
#include "plots/metric_canvas.h"
#include "report/html_report.h"
#include "runs/run_loader.h"
#include "runs/runs_panel.h"
#include "ui_test_support.h"
#include "window/export_actions.h"

using namespace accumlab;
using namespace accumlab::ui;

namespace {
QByteArray readAll(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
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
    plots_ = std::make_unique<LivePlots>();
    plots_->resize(1200, 700);
    plots_->showRuns(loadExperiments(*store_, ids_));
    runs_ = std::make_unique<RunsPanel>();
    runs_->setStore(store_.get());
    window_ = std::make_unique<QWidget>();
    actions_ = std::make_unique<ExportActions>(window_.get(), plots_.get(), runs_.get(),
                                               [this] { return store_.get(); });
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
    QVERIFY(html.contains("micro_batch"));     // the config table
    QVERIFY(html.contains("Window normalisation"));
    // Every embedded image decodes to a PNG of the export size.
    int images = 0;
    int at = 0;
    const QString marker = "data:image/png;base64,";
    while ((at = html.indexOf(marker, at)) >= 0) {
      at += marker.size();
      const int end = html.indexOf('\'', at);
      const QImage img = QImage::fromData(QByteArray::fromBase64(html.mid(at, end - at).toLatin1()), "PNG");
      QCOMPARE(img.size(), QSize(kExportWidth, kExportHeight));
      ++images;
    }
    QCOMPARE(images, static_cast<int>(plots_->canvases().size()));
  }

  void offScreenReportMatchesTheSameRuns() {
    const QString path = dir_.filePath("offscreen.html");
    QString error;
    QVERIFY2(writeHtmlReport(loadExperiments(*store_, {ids_.front()}), path, &error), qPrintable(error));
    QVERIFY(readAll(path).contains("data:image/png;base64,"));
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
    const QString first_label = QString::fromStdString(plots_->shownRuns().front()->label);
    const QString ids = QString::fromStdString(loadRuns(*store_, second).front().id_label);
    QVERIFY2(ids.contains(QString::number(second.front())), qPrintable(ids));
    QVERIFY2(html.contains(ids + " · "), "the selected runs are not in the report, by their ids");
    QVERIFY2(!html.contains(first_label.toHtmlEscaped()), "the report shows the plotted runs, not the selected ones");
    runs_->selectRuns({});
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
  std::unique_ptr<LivePlots> plots_;
  std::unique_ptr<RunsPanel> runs_;
  std::unique_ptr<QWidget> window_;
  std::unique_ptr<ExportActions> actions_;
};

QTEST_MAIN(ExportTest)
#include "export_test.moc"
