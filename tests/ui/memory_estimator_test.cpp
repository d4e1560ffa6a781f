// The experiment panel's tensor-memory estimate (ui/experiment/memory_estimator.cpp): probes
// run off the GUI thread, are cached per model and data, and say m's and m·K's memory.
#include "experiment/memory_estimator.h"

#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>

#include "experiment/batch_slider.h"
#include "experiment/experiment_panel.h"
#include "ui_test_support.h"

using namespace accumlab;
using namespace accumlab::ui;

namespace {

ExperimentConfig cnnExperiment() {
  ExperimentConfig c;
  c.data = "blobs:1x28x28";
  c.synthetic_samples = 600;
  c.model = "cnn";
  c.micro_batch = 16;
  c.accum = 16;
  c.device = "cpu";
  return c;
}

}  // namespace

class MemoryEstimatorTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { test::isolateSettings(); }

  void probesOnAWorkerAndCachesTheModel() {
    MemoryEstimator estimator;
    QSignalSpy ready(&estimator, &MemoryEstimator::modelReady);
    estimator.request(cnnExperiment());
    QVERIFY(estimator.probing());  // the GUI thread did not wait for it
    QVERIFY(!estimator.current());
    QVERIFY(test::waitUntil([&] { return ready.count() == 1; }));
    const auto model = estimator.current();
    QVERIFY(model.has_value());
    QVERIFY(model->per_sample_bytes > 0);
    QVERIFY(model->fixed_bytes > 0);
    // Moving the sliders changes nothing the probe depends on: no second probe.
    ExperimentConfig other = cnnExperiment();
    other.micro_batch = 64;
    other.accum = 2;
    other.optimizer.lr = 0.5;
    estimator.request(other);
    QVERIFY(!estimator.probing());
    QVERIFY(estimator.current().has_value());
    const QString text = memoryEstimateText(*model, 16, 16);
    QVERIFY2(
        text.startsWith("m=16: ≈ ") && text.contains("MiB of tensors; m·K=256 as one batch: ≈ "),
        qPrintable(text));
    QVERIFY(model->predict(256) > 4 * model->predict(16) - 3 * model->fixed_bytes);
    // The part accumulation cannot save is named with its size.
    const double fixed_mib = model->fixed_bytes / (1024.0 * 1024.0);
    const QString fixed = QString::number(fixed_mib, 'f', fixed_mib < 10 ? 1 : 0);
    QVERIFY2(text.contains("(≈ " + fixed + " MiB of both is weights, gradients"), qPrintable(text));
  }

  void aModelThatCannotTakeTheDataSaysWhy() {
    MemoryEstimator estimator;
    QSignalSpy ready(&estimator, &MemoryEstimator::modelReady);
    ExperimentConfig c = cnnExperiment();
    c.data = "spirals";  // 2 features: no image for the CNN
    estimator.request(c);
    QVERIFY(test::waitUntil([&] { return ready.count() == 1; }));
    QVERIFY(!estimator.current());
    QVERIFY2(estimator.failure().contains("image"), qPrintable(estimator.failure()));
  }

  void thePanelShowsTheEstimateBesideTheSliders() {
    ExperimentPanel panel;
    panel.setConfig(cnnExperiment());
    QVERIFY(test::waitUntil([&] { return panel.memoryEstimateText().contains("MiB of tensors"); }));
    QVERIFY2(panel.memoryEstimateText().startsWith("m=16: ≈ "),
             qPrintable(panel.memoryEstimateText()));
    QVERIFY(panel.memoryEstimateText().contains("m·K=256 as one batch"));
  }

  void fitSetsTheSlidersForTheBudgetAndKeepsTheEffectiveBatch() {
    ExperimentPanel panel;
    panel.setConfig(cnnExperiment());  // 16 × 16
    QVERIFY(test::waitUntil([&] { return panel.memoryEstimateText().contains("MiB of tensors"); }));
    auto* budget = panel.findChild<QLineEdit*>("memoryBudget");
    auto* fit = panel.findChild<QPushButton*>("fitBudget");
    auto* m = panel.findChild<BatchSlider*>("microBatch");
    auto* k = panel.findChild<BatchSlider*>("accum");
    auto* why = panel.findChild<QLabel*>("budgetFit");
    QVERIFY(budget && fit && m && k && why);
    QSignalSpy m_changed(&panel, &ExperimentPanel::microBatchChanged);
    // The CNN takes about 0.7 MiB + 70 KiB per sample: 3 MiB fits m ≈ 32, not 64.
    budget->setText("3MiB");
    fit->click();
    QVERIFY2(m->value() >= 24 && m->value() <= 32, qPrintable(why->text()));
    QVERIFY(m->value() * k->value() >= 256 && (m->value() - 1) * k->value() < 256);
    QCOMPARE(m_changed.count(), 1);
    QVERIFY2(why->text().startsWith("memory budget 3.0 MiB: m = "), qPrintable(why->text()));
    // Below what one sample needs: a sentence, the sliders stay.
    const int64_t kept = m->value();
    budget->setText("10KiB");
    fit->click();
    QCOMPARE(m->value(), kept);
    QVERIFY2(why->text().contains("below the"), qPrintable(why->text()));
    budget->setText("a lot");
    fit->click();
    QVERIFY2(why->text().contains("not a size"), qPrintable(why->text()));
  }
};

QTEST_MAIN(MemoryEstimatorTest)
#include "memory_estimator_test.moc"
