// SPDX-License-Identifier: GPL-3.0-or-later
#include "window/presentation_mode.h"

#include <QAction>
#include <QDockWidget>
#include <QLayout>
#include <QMainWindow>
#include <QMenu>
#include <QSignalBlocker>
#include <QTimer>
#include <algorithm>

#include "plots/plot_catalog.h"
#include "plots/plot_grid.h"

namespace accumlab::ui {

namespace {

constexpr int kPresentedPlots = 4;

}  // namespace

QStringList PresentationMode::defaultPlots() {
  return {"loss", "variance", "noise", "equivalence"};
}

PresentationMode::PresentationMode(QMainWindow* window, PlotGrid* plots)
    : QObject(window),
      window_(window),
      plots_(plots),
      action_(new QAction(tr("&Presentation mode"), this)),
      plots_menu_(new QMenu(tr("Plots in &presentation"), window)),
      chosen_(defaultPlots()) {
  action_->setCheckable(true);
  action_->setShortcut(QKeySequence(Qt::Key_F11));
  action_->setShortcutContext(Qt::ApplicationShortcut);
  action_->setToolTip(tr("Full screen, larger fonts and four plots: for a projector (F11)"));
  connect(action_, &QAction::toggled, this, &PresentationMode::setActive);
  for (const CanvasDef& def : plotCatalog()) {
    QAction* a = plots_menu_->addAction(def.title);
    a->setCheckable(true);
    a->setData(def.id);
    connect(a, &QAction::toggled, this, [this, id = def.id](bool on) {
      QStringList ids = chosen_;
      ids.removeAll(id);
      // A fifth choice replaces the one picked longest ago.
      if (on) {
        if (ids.size() >= kPresentedPlots) ids.removeFirst();
        ids.append(id);
      }
      setChosenPlots(ids);
    });
  }
  updateMenu();
}

void PresentationMode::setChosenPlots(const QStringList& ids) {
  QStringList kept;
  for (const QString& id : ids) {
    const bool known = std::any_of(plotCatalog().begin(), plotCatalog().end(),
                                   [&](const CanvasDef& d) { return d.id == id; });
    if (known && !kept.contains(id)) kept.append(id);
  }
  while (kept.size() > kPresentedPlots) kept.removeFirst();
  if (kept.isEmpty()) kept = defaultPlots();
  if (kept == chosen_) return updateMenu();
  chosen_ = kept;
  updateMenu();
  if (active_) plots_->setShownPlots(chosen_);
  emit chosenPlotsChanged();
}

void PresentationMode::updateMenu() {
  for (QAction* a : plots_menu_->actions()) {
    const QSignalBlocker block(a);
    a->setChecked(chosen_.contains(a->data().toString()));
  }
}

void PresentationMode::setActive(bool on) {
  if (on == active_) return;
  active_ = on;
  {
    const QSignalBlocker block(action_);
    action_->setChecked(on);
  }
  on ? enter() : leave();
}

void PresentationMode::enter() {
  font_ = window_->font();
  window_state_ = window_->windowState();
  geometry_ = window_->geometry();
  layout_ = window_->saveState();
  QFont large = font_;
  large.setPointSizeF(font_.pointSizeF() * kFontScale);
  window_->setFont(large);
  hidden_docks_.clear();
  for (QDockWidget* dock : window_->findChildren<QDockWidget*>()) {
    if (!dock->isHidden()) {  // not isVisible(): the window may not be shown yet (--presentation)
      dock->hide();
      hidden_docks_.append(dock);
    }
  }
  plots_->setShownPlots(chosen_);
  window_->setWindowState(window_state_ | Qt::WindowFullScreen);
}

void PresentationMode::leave() {
  window_->setWindowState(window_state_);
  plots_->setShownPlots({});
  for (QDockWidget* dock : hidden_docks_) dock->show();
  hidden_docks_.clear();
  window_->setFont(font_);
  // Size hints cached at the large fonts (combo boxes, the plots' bar) would keep the window
  // as wide as the projector: every layout measures again.
  for (QLayout* layout : window_->findChildren<QLayout*>()) layout->invalidate();
  for (QWidget* w : window_->findChildren<QWidget*>()) w->updateGeometry();
  // Showing the docks again brings the last one of each tab group to the front, and a
  // window manager may keep the full-screen size: put both back as they were.
  window_->restoreState(layout_);
  if (window_state_ & (Qt::WindowMaximized | Qt::WindowFullScreen)) return;
  window_->setGeometry(geometry_);
  // The layouts settle on the normal fonts only when events are next handled, and may grow
  // the window on the way: put it back once more then.
  QTimer::singleShot(0, window_, [window = window_, geometry = geometry_] {
    if (!(window->windowState() & (Qt::WindowMaximized | Qt::WindowFullScreen)))
      window->setGeometry(geometry);
  });
}

}  // namespace accumlab::ui
