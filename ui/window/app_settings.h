// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QSettings>
#include <QStringList>
#include <optional>

#include "accumlab/experiment_config.h"

class QMainWindow;
class QWidget;

namespace accumlab::ui {

class PlotGrid;
class PresentationMode;

/// The app's persistent settings (QSettings): last experiment, window layout, recent files,
/// plot view options and the database path. GUI thread.
class AppSettings {
 public:
  /// The most recent files kept.
  static constexpr int kMaxRecentFiles = 8;

  /// The last experiment, if one was saved and still parses.
  std::optional<ExperimentConfig> lastExperiment() const;
  void saveExperiment(const ExperimentConfig& config);
  QByteArray geometry() const;
  QByteArray windowState() const;
  void saveLayout(const QByteArray& geometry, const QByteArray& state);
  QStringList recentFiles() const;
  /// Moves `path` to the front of the recent files.
  void addRecentFile(const QString& path);
  int xAxisMode() const;
  double smoothing() const;
  bool logY() const;
  void saveView(int x_axis_mode, double smoothing, bool log_y);
  /// The plots Presentation mode shows (empty: its default four).
  QStringList presentationPlots() const;
  void savePresentationPlots(const QStringList& ids);
  QString databasePath() const;

  /// Restores `window`'s layout, the plots' view options and the presentation's plots; a
  /// fresh start only sizes the window.
  /// Shrinks `window` to its screen's available area and moves it onto it (a geometry saved
  /// on a larger screen or while full screen).
  static void fitToScreen(QWidget* window);
  void restoreWindow(QMainWindow* window, PlotGrid* plots, PresentationMode* presentation,
                     bool fresh) const;
  /// Saves `window`'s layout and the experiment shown.
  void saveWindow(QMainWindow* window, const ExperimentConfig& experiment);
  void saveDatabasePath(const QString& path);

 private:
  QSettings settings_;
};

}  // namespace accumlab::ui
