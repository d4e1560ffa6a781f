// SPDX-License-Identifier: GPL-3.0-or-later
#include "controller/training_worker.h"

#include <QStringList>

#include <exception>

#include "accumlab/generator_gate.h"
#include "accumlab/input_error.h"
#include "accumlab/input_file.h"
#include "accumlab/run_session.h"

namespace accumlab::ui {

void TrainingWorker::train(RunSession* session, const std::vector<MetricsSink*>& sinks) {
  // Exceptions must not cross the thread boundary: they become a message for the GUI.
  try {
    // A memory probe still finishing holds the gate for a second at most.
    const std::lock_guard<std::mutex> gate(globalGeneratorGate());
    session->run(sinks);
    QStringList problems;
    for (const std::string& p : session->finish()) problems << QString::fromStdString(p);
    if (!problems.isEmpty()) {
      emit finished(problems.join("\n"), false);
      return;
    }
  } catch (const InputError& e) {
    emit finished(QString::fromStdString(e.what()), true);
    return;
  } catch (const ReadStopped&) {
    // Stopped while the data was read: nothing trained, nothing to report.
    emit finished(QString(), false);
    return;
  } catch (const std::exception& e) {
    emit finished(QString::fromStdString(e.what()), false);
    return;
  }
  emit finished(QString(), false);
}

}  // namespace accumlab::ui
