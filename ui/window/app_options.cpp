// SPDX-License-Identifier: GPL-3.0-or-later
#include "window/app_options.h"

#include <cstdint>
#include <exception>
#include <optional>

#include <QCommandLineParser>
#include <QCoreApplication>

namespace accumlab::ui {

int parseAppOptions(const QStringList& arguments, AppOptions* out, QString* message) {
  QCommandLineParser parser;
  parser.setApplicationDescription(
      QCoreApplication::translate("main", "AccumLab: gradient accumulation, measured live."));
  const QCommandLineOption help = parser.addHelpOption();
  const QCommandLineOption version = parser.addVersionOption();
  const QCommandLineOption run({"r", "run"},
                               QCoreApplication::translate("main", "Start training at once."));
  const QCommandLineOption config(
      "config", QCoreApplication::translate("main", "Experiment JSON file."), "FILE");
  const QCommandLineOption preset(
      "preset",
      QCoreApplication::translate(
          "main", "Start from a named experiment instead of the last one: default or fortunes."),
      "NAME");
  const QCommandLineOption data(
      "data", QCoreApplication::translate("main", "Data SPEC (e.g. fashion-mnist, csv:FILE)."),
      "SPEC");
  const QCommandLineOption model(
      "model",
      QCoreApplication::translate("main", "Model SPEC (e.g. mlp, cnn, torchscript:FILE.pt)."),
      "SPEC");
  const QCommandLineOption micro({"m", "micro-batch"},
                                 QCoreApplication::translate("main", "Micro-batch size m."), "M");
  const QCommandLineOption accum(
      {"k", "accum"}, QCoreApplication::translate("main", "Micro-batches per update K."), "K");
  const QCommandLineOption samples(
      "samples", QCoreApplication::translate("main", "Budget in samples per arm."), "N");
  const QCommandLineOption screenshot(
      "screenshot",
      QCoreApplication::translate("main", "Save a PNG of the window before quitting."), "FILE");
  const QCommandLineOption quit(
      "quit-after", QCoreApplication::translate("main", "Quit after this many seconds."),
      "SECONDS");
  const QCommandLineOption db(
      "db", QCoreApplication::translate("main", "Run database (default: the app-data folder)."),
      "PATH");
  const QCommandLineOption no_store("no-store",
                                    QCoreApplication::translate("main", "Do not store runs."));
  const QCommandLineOption fresh(
      "fresh",
      QCoreApplication::translate("main", "Ignore the saved experiment and window layout."));
  const QCommandLineOption lesson(
      "lesson",
      QCoreApplication::translate(
          "main",
          "Open the Lessons tab on this lesson (its number, id or file); with --run, run it."),
      "N|FILE");
  const QCommandLineOption predict(
      "predict", QCoreApplication::translate("main", "Your answer to the lesson's question."), "X");
  const QCommandLineOption presentation(
      "presentation",
      QCoreApplication::translate(
          "main",
          "Start in Presentation mode (full screen, larger fonts, four plots; F11 leaves it)."));
  const QCommandLineOption open(
      "open",
      QCoreApplication::translate("main",
                                  "Show these stored runs at start (ids, comma-separated; several "
                                  "are overlaid to compare)."),
      "IDS");
  for (const auto& o : {run, config, preset, data, model, micro, accum, samples, screenshot, quit,
                        db, no_store, fresh, lesson, predict, presentation, open}) {
    parser.addOption(o);
  }
  if (!parser.parse(arguments)) {
    *message = parser.errorText() + QCoreApplication::translate("main", " (see accumlab --help)");
    return 2;
  }
  if (parser.isSet(help)) {
    *message = parser.helpText();
    return -1;
  }
  if (parser.isSet(version)) {
    // The program's name as typed, as command-line tools print it (and help2man reads it).
    *message = "accumlab " + QCoreApplication::applicationVersion();
    return -1;
  }
  ConfigOverrides& experiment = out->experiment;
  auto positive = [&](const QCommandLineOption& o, std::optional<int64_t>* field) {
    if (!parser.isSet(o)) return true;
    bool ok = false;
    const qint64 v = parser.value(o).toLongLong(&ok);
    if (!ok || v < 1) {
      *message = QCoreApplication::translate("main", "--%1 needs a positive integer, found '%2'")
                     .arg(o.names().last(), parser.value(o));
      return false;
    }
    *field = v;
    return true;
  };
  if (!positive(micro, &experiment.micro_batch) || !positive(accum, &experiment.accum) ||
      !positive(samples, &experiment.samples)) {
    return 2;
  }
  if (parser.isSet(quit)) {
    bool ok = false;
    out->quit_after = parser.value(quit).toDouble(&ok);
    if (!ok || out->quit_after <= 0) {
      *message = QCoreApplication::translate(
                     "main", "--quit-after needs a positive number of seconds, found '%1'")
                     .arg(parser.value(quit));
      return 2;
    }
  }
  for (const QString& id : parser.isSet(open) ? parser.value(open).split(',') : QStringList()) {
    bool ok = false;
    const qint64 v = id.trimmed().toLongLong(&ok);
    if (!ok || v < 1) {
      *message =
          QCoreApplication::translate(
              "main",
              "--open needs run ids such as 12,13,14; '%1' is not one (see accumlab-cli list)")
              .arg(id);
      return 2;
    }
    out->open.push_back(v);
  }
  out->run = parser.isSet(run);
  experiment.config_file = parser.value(config).toStdString();
  experiment.preset = parser.value(preset).toStdString();
  if (!experiment.preset.empty()) {
    try {
      presetExperiment(experiment.preset);
    } catch (const std::exception& e) {
      *message = QString::fromStdString(e.what());
      return 2;
    }
  }
  // An empty SPEC keeps the experiment's, as no option at all does.
  if (!parser.value(data).isEmpty()) experiment.data = parser.value(data).toStdString();
  if (!parser.value(model).isEmpty()) experiment.model = parser.value(model).toStdString();
  out->screenshot = parser.value(screenshot);
  out->db = parser.value(db);
  out->no_store = parser.isSet(no_store);
  out->fresh = parser.isSet(fresh);
  out->presentation = parser.isSet(presentation);
  out->lesson = parser.value(lesson);
  out->predict = parser.value(predict);
  if (!parser.positionalArguments().isEmpty()) {
    *message = QCoreApplication::translate("main", "unexpected argument '%1' (see accumlab --help)")
                   .arg(parser.positionalArguments().first());
    return 2;
  }
  return 0;
}

}  // namespace accumlab::ui
