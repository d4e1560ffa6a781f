// SPDX-License-Identifier: GPL-3.0-or-later
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

  void theRatioSaysWhatDominates() {
    // The default MLP: 1.4 MiB of weights, gradients and Adam's moments against 2.4 KiB a
    // sample; accumulating adds 0.38 MiB.
    MemoryModel mlp;
    mlp.fixed_bytes = 1.4 * 1024 * 1024;
    mlp.per_sample_bytes = 2.4 * 1024;
    mlp.accum_extra_bytes = 0.38 * 1024 * 1024;
    const double mlp_ratio = mlp.predict(8, 8) / mlp.predict(64);
    QString text = memoryRatioText(mlp, 8, 8);
    QVERIFY2(text.startsWith(QString("accum needs <b>%1</b> of big-batch's tensor memory on this "
                                     "model: its weights dominate")
                                 .arg(mlp_ratio, 0, 'f', 2)),
             qPrintable(text));
    QVERIFY(mlp_ratio > 0.9);
    // A CNN on images: the activations of m·K = 256 samples outweigh the weights.
    MemoryModel cnn;
    cnn.fixed_bytes = 0.7 * 1024 * 1024;
    cnn.per_sample_bytes = 70 * 1024;
    cnn.accum_extra_bytes = 9 * 1024;
    text = memoryRatioText(cnn, 16, 16);
    const double cnn_ratio = cnn.predict(16, 16) / cnn.predict(256);
    QVERIFY(cnn_ratio < 0.2);
    QVERIFY2(text.startsWith(QString("accum needs <b>%1</b> of big-batch's tensor memory on this "
                                     "model: activations dominate")
                                 .arg(cnn_ratio, 0, 'f', 2)),
             qPrintable(text));
    QVERIFY2(memoryRatioText(cnn, 16, 1).startsWith("K = 1: accum is the big batch"),
             qPrintable(memoryRatioText(cnn, 16, 1)));
  }

  void thePanelShowsTheRatioBesideTheSliders() {
    ExperimentPanel panel;
    panel.setConfig(cnnExperiment());
    QVERIFY(test::waitUntil(
        [&] { return panel.memoryEstimateText().contains("of big-batch's tensor memory"); }));
    QVERIFY2(panel.memoryEstimateText().startsWith("accum needs <b>0."),
             qPrintable(panel.memoryEstimateText()));
    QVERIFY2(panel.memoryEstimateText().contains("activations dominate"),
             qPrintable(panel.memoryEstimateText()));
    // The figures behind it are in its tooltip.
    auto* label = panel.findChild<QLabel*>("memoryEstimate");
    QVERIFY(label);
    QVERIFY2(label->toolTip().startsWith("m=16: ≈ ") &&
                 label->toolTip().contains("m·K=256 as one batch"),
             qPrintable(label->toolTip()));
    // No promise of m's memory beside the effective batch; both lines fit a dock of 300 px.
    bool effective_found = false;
    for (QLabel* l : panel.findChildren<QLabel*>()) {
      if (!l->text().startsWith("effective batch")) continue;
      effective_found = true;
      QVERIFY2(!l->text().contains("memory of"), qPrintable(l->text()));
      QVERIFY2(l->sizeHint().width() <= 300, qPrintable(l->text()));
    }
    QVERIFY(effective_found);
    QVERIFY(label->wordWrap());
    QVERIFY2(label->minimumSizeHint().width() <= 300, qPrintable(label->text()));
  }

  void fitSetsTheSlidersForTheBudgetAndKeepsTheEffectiveBatch() {
    ExperimentPanel panel;
    panel.setConfig(cnnExperiment());  // 16 × 16
    QVERIFY(test::waitUntil(
        [&] { return panel.memoryEstimateText().contains("of big-batch's tensor memory"); }));
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
