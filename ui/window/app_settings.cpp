// SPDX-License-Identifier: GPL-3.0-or-later
#include "window/app_settings.h"

#include <QMainWindow>
#include <QScreen>
#include <algorithm>
#include <exception>

#include "plots/plot_grid.h"
#include "window/presentation_mode.h"

namespace accumlab::ui {

std::optional<ExperimentConfig> AppSettings::lastExperiment() const {
  const QString json = settings_.value("experiment/last").toString();
  if (json.isEmpty()) return std::nullopt;
  try {
    return configFromJson(json.toStdString(), "the saved settings");
  } catch (const std::exception&) {
    return std::nullopt;  // an older or damaged entry: start from the defaults
  }
}

void AppSettings::saveExperiment(const ExperimentConfig& config) {
  settings_.setValue("experiment/last", QString::fromStdString(configToJson(config, 0)));
}

QByteArray AppSettings::geometry() const {
  return settings_.value("window/geometry").toByteArray();
}

QByteArray AppSettings::windowState() const {
  return settings_.value("window/state").toByteArray();
}

void AppSettings::saveLayout(const QByteArray& geometry, const QByteArray& state) {
  settings_.setValue("window/geometry", geometry);
  settings_.setValue("window/state", state);
}

QStringList AppSettings::recentFiles() const {
  return settings_.value("files/recent").toStringList();
}

void AppSettings::addRecentFile(const QString& path) {
  QStringList files = recentFiles();
  files.removeAll(path);
  files.prepend(path);
  while (files.size() > kMaxRecentFiles) files.removeLast();
  settings_.setValue("files/recent", files);
}

int AppSettings::xAxisMode() const { return settings_.value("view/xAxis", 0).toInt(); }

double AppSettings::smoothing() const {
  return settings_.value("view/smoothing", PlotGrid::kDefaultSmoothing).toDouble();
}

bool AppSettings::logY() const { return settings_.value("view/logY", false).toBool(); }

QStringList AppSettings::presentationPlots() const {
  return settings_.value("view/presentationPlots").toStringList();
}

void AppSettings::savePresentationPlots(const QStringList& ids) {
  settings_.setValue("view/presentationPlots", ids);
}

void AppSettings::saveView(int x_axis_mode, double smoothing, bool log_y) {
  settings_.setValue("view/xAxis", x_axis_mode);
  settings_.setValue("view/smoothing", smoothing);
  settings_.setValue("view/logY", log_y);
}

QString AppSettings::databasePath() const { return settings_.value("store/path").toString(); }

void AppSettings::saveDatabasePath(const QString& path) { settings_.setValue("store/path", path); }

void AppSettings::fitToScreen(QWidget* window) {
  const QScreen* screen = window->screen();
  if (!screen) return;
  // A geometry saved on a larger screen (or by a full-screen window) would put the status
  // bar off this one: shrink it to the screen and move it onto it.
  const QRect available = screen->availableGeometry();
  const QRect frame = window->frameGeometry();
  const QSize decorations = frame.size() - window->size();
  const QSize fitted = window->size().boundedTo(available.size() - decorations);
  if (fitted != window->size()) window->resize(fitted);
  QRect moved = window->frameGeometry();
  moved.moveRight(std::min(moved.right(), available.right()));
  moved.moveBottom(std::min(moved.bottom(), available.bottom()));
  moved.moveLeft(std::max(moved.left(), available.left()));
  moved.moveTop(std::max(moved.top(), available.top()));
  if (moved.topLeft() != window->frameGeometry().topLeft()) window->move(moved.topLeft());
}

void AppSettings::restoreWindow(QMainWindow* window, PlotGrid* plots,
                                PresentationMode* presentation, bool fresh) const {
  // The default size, within the screen (a 1024×768 projector gets the whole screen).
  QSize size(1500, 940);
  if (const QScreen* screen = window->screen())
    size = size.boundedTo(screen->availableGeometry().size());
  if (fresh) {
    window->resize(size);
    return;
  }
  if (!window->restoreGeometry(geometry())) window->resize(size);
  fitToScreen(window);
  window->restoreState(windowState());
  plots->setXAxisMode(static_cast<XAxisMode>(xAxisMode()));
  plots->setSmoothing(smoothing());
  plots->setLogY(logY());
  presentation->setChosenPlots(presentationPlots());
}

void AppSettings::saveWindow(QMainWindow* window, const ExperimentConfig& experiment) {
  saveLayout(window->saveGeometry(), window->saveState());
  saveExperiment(experiment);
}

}  // namespace accumlab::ui
