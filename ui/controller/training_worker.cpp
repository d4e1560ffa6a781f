#include "controller/training_worker.h"

#include <exception>

#include "accumlab/input_error.h"
#include "accumlab/trainer.h"

namespace accumlab::ui {

void TrainingWorker::train(Trainer* trainer, MetricsSink* sink) {
  // Exceptions must not cross the thread boundary: they become a message for the GUI.
  try {
    trainer->run(*sink);
  } catch (const InputError& e) {
    emit finished(QString::fromStdString(e.what()), true);
    return;
  } catch (const std::exception& e) {
    emit finished(QString::fromStdString(e.what()), false);
    return;
  }
  emit finished(QString(), false);
}

}  // namespace accumlab::ui
