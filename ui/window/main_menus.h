// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <QString>
#include <functional>

class QMainWindow;
class QAction;
class QMenu;

namespace accumlab::ui {

class AppSettings;
class ExportActions;
class PlotGrid;
class PresentationMode;
class RunActions;

/// What the menu bar and the toolbar act on.
struct MenuTargets {
  QMainWindow* window = nullptr;
  AppSettings* settings = nullptr;  ///< the recent files
  RunActions* run = nullptr;
  ExportActions* exports = nullptr;
  PlotGrid* plots = nullptr;
  PresentationMode* presentation = nullptr;
  std::function<void(const QString&)> open_path;    ///< a dataset or model file or folder
  std::function<void(const QString&)> open_lesson;  ///< a lesson file
  std::function<void()> choose_database;
  std::function<QString()> current_page;  ///< the manual's page of the tab in front (app.md …)
  std::function<void(const QString&)> import_audit;  ///< an audit file of the user's own loop
  std::function<void(const QString&)> merge_store;   ///< a run store made on another machine
  std::function<void()> open_experiment;             ///< File → Open experiment…
  std::function<void()> save_experiment;             ///< File → Save experiment…
  std::function<void()> reset_experiment;            ///< File → Reset to the default demo
  QAction* save_model = nullptr;  ///< File → Save trained model… (ModelSaveAction)
};

/// The window's menu bar (File, Run, View, Help), its Training toolbar, and the plots'
/// right-click "Export this plot…". GUI thread.
class MainMenus : public QObject {
  Q_OBJECT

 public:
  explicit MainMenus(MenuTargets targets);
  /// Lists the recent files again (after one was opened).
  void updateRecent();
  /// Help → Keyboard and mouse: every key of the window's actions and what the mouse does
  /// on a plot, as rich text.
  QString shortcutsText() const;

 private:
  void buildToolBar();
  void buildFileMenu();
  void buildViewMenu();
  void buildHelpMenu();
  void showShortcuts();

  MenuTargets t_;
  QMenu* export_menu_;
  QMenu* recent_menu_ = nullptr;
};

}  // namespace accumlab::ui
