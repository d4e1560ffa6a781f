// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QFont>
#include <QObject>
#include <QRect>
#include <QStringList>
#include <QVector>

class QAction;
class QDockWidget;
class QMainWindow;
class QMenu;

namespace accumlab::ui {

class PlotGrid;

/// View → Presentation mode (F11), for a projector: the window full screen, every font
/// ×1.5, the side docks hidden and the plots reduced to a 2×2 grid of four the user picks
/// (View → Plots in presentation). Leaving it restores the window exactly as it was: size,
/// place, docks and the tab in front of each. GUI thread.
class PresentationMode : public QObject {
  Q_OBJECT

 public:
  /// How much larger every font is while presenting.
  static constexpr double kFontScale = 1.5;
  /// The plots a presentation starts with.
  static QStringList defaultPlots();

  PresentationMode(QMainWindow* window, PlotGrid* plots);

  /// The checkable action (F11).
  QAction* action() const { return action_; }
  /// The submenu that picks the four plots.
  QMenu* plotsMenu() const { return plots_menu_; }
  bool isActive() const { return active_; }
  void setActive(bool on);
  /// The plots shown while presenting, in catalog order (at most four).
  QStringList chosenPlots() const { return chosen_; }
  /// Picks the plots (unknown ids are ignored, at most four are kept).
  void setChosenPlots(const QStringList& ids);

 signals:
  /// The chosen plots changed (for the settings).
  void chosenPlotsChanged();

 private:
  void enter();
  void leave();
  void updateMenu();

  QMainWindow* window_;
  PlotGrid* plots_;
  QAction* action_;
  QMenu* plots_menu_;
  QStringList chosen_;
  bool active_ = false;
  // What leaving restores.
  QFont font_;
  Qt::WindowStates window_state_;
  QRect geometry_;     ///< the normal window's size and place
  QByteArray layout_;  ///< its docks: which shows, which tab is in front, their sizes
  QVector<QDockWidget*> hidden_docks_;
};

}  // namespace accumlab::ui
