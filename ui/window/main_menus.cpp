// SPDX-License-Identifier: GPL-3.0-or-later
#include "window/main_menus.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDockWidget>
#include <QMainWindow>
#include <QMap>
#include <QMenuBar>
#include <QMessageBox>
#include <QStyle>
#include <QToolBar>
#include <QToolButton>

#include "accumlab/lesson.h"
#include "files/file_dialogs.h"
#include "help/manual_pages.h"
#include "help/plot_help.h"
#include "plots/metric_canvas.h"
#include "plots/plot_exporter.h"
#include "plots/plot_grid.h"
#include "widgets/named.h"
#include "window/app_settings.h"
#include "window/export_actions.h"
#include "window/presentation_mode.h"
#include "window/run_actions.h"

namespace accumlab::ui {

MainMenus::MainMenus(MenuTargets targets)
    : QObject(targets.window),
      t_(std::move(targets)),
      export_menu_(new QMenu(tr("&Export"), t_.window)) {
  t_.exports->populateMenu(export_menu_);
  buildToolBar();
  buildFileMenu();
  QMenu* run = t_.window->menuBar()->addMenu(tr("&Run"));
  run->addAction(t_.run->run());
  run->addAction(t_.run->pause());
  run->addAction(t_.run->stop());
  buildViewMenu();
  buildHelpMenu();
  // Right-click on a plot exports it or copies it to the clipboard.
  for (MetricCanvas* canvas : t_.plots->canvases()) {
    auto* a = new QAction(tr("Export this plot…"), canvas);
    connect(a, &QAction::triggered, this, [this, canvas] { t_.exports->exportPlot(canvas); });
    canvas->addAction(a);
    auto* copy = new QAction(tr("Copy this plot"), canvas);
    copy->setObjectName("copyPlot");
    connect(copy, &QAction::triggered, this,
            [canvas] { QGuiApplication::clipboard()->setPixmap(canvasImage(canvas)); });
    canvas->addAction(copy);
    canvas->setContextMenuPolicy(Qt::ActionsContextMenu);
  }
}

void MainMenus::buildToolBar() {
  QToolBar* bar = t_.window->addToolBar(tr("Training"));
  bar->setObjectName("trainingToolBar");
  bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  t_.run->addTo(bar);
  bar->addSeparator();
  auto* export_button = new QToolButton(bar);
  export_button->setText(tr("Export"));
  export_button->setIcon(t_.window->style()->standardIcon(QStyle::SP_DialogSaveButton));
  export_button->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  export_button->setToolTip(
      tr("Export runs (CSV, JSON, TensorBoard logs), plots (PNG, SVG, PDF) or a report"));
  export_button->setMenu(export_menu_);
  export_button->setPopupMode(QToolButton::InstantPopup);
  bar->addWidget(export_button);
  bar->addAction(t_.exports->reportAction());
}

void MainMenus::buildFileMenu() {
  QWidget* w = t_.window;
  QMenu* file = t_.window->menuBar()->addMenu(tr("&File"));
  file->addAction(tr("&Open dataset or model…"), QKeySequence::Open, this, [this, w] {
    const QString path = file_dialogs::openFile(
        w, tr("Open a dataset or model"), QString(),
        tr("Datasets and models (*.csv *.tsv *.txt *-ubyte *-ubyte.gz *.pt *.pth);;All files (*)"));
    if (!path.isEmpty()) t_.open_path(path);
  });
  file->addAction(tr("Open dataset &folder…"), this, [this, w] {
    const QString path = file_dialogs::folder(w, tr("Open an IDX or CIFAR-10 folder"));
    if (!path.isEmpty()) t_.open_path(path);
  });
  file->addAction(tr("Open &lesson…"), this, [this, w] {
    const QString path =
        file_dialogs::openFile(w, tr("Open a lesson"), QString::fromStdString(lessonDirectory()),
                               tr("Lessons (*.json);;All files (*)"));
    if (!path.isEmpty()) t_.open_lesson(path);
  });
  file->addSeparator();
  QAction* open_experiment =
      file->addAction(tr("Open e&xperiment…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O), this,
                      [this] { t_.open_experiment(); });
  open_experiment->setObjectName("openExperiment");
  open_experiment->setToolTip(
      tr("Load an experiment file (the JSON of accumlab-cli run --config)"));
  QAction* save_experiment = file->addAction(tr("&Save experiment…"), QKeySequence::Save, this,
                                             [this] { t_.save_experiment(); });
  save_experiment->setObjectName("saveExperiment");
  save_experiment->setToolTip(
      tr("Save the experiment as a JSON file that accumlab-cli run --config and accumlab "
         "--config read"));
  QAction* reset =
      file->addAction(tr("Reset to the &default demo"), this, [this] { t_.reset_experiment(); });
  reset->setObjectName("resetExperiment");
  reset->setToolTip(tr("Every setting of the experiment back to the default demo's"));
  file->addSeparator();
  // An action that asks for a file to open and hands its path to `use`, when it is set.
  const auto addOpenAction = [this, w, file](const QString& text, const QString& title,
                                             const QString& filter,
                                             const std::function<void(const QString&)>& use) {
    return file->addAction(text, this, [w, title, filter, use] {
      const QString path = file_dialogs::openFile(w, title, QString(), filter);
      if (!path.isEmpty() && use) use(path);
    });
  };
  named(addOpenAction(tr("Import &audit…"), tr("Import an audit of your own loop"),
                      tr("Audit files (*.jsonl);;All files (*)"), t_.import_audit),
        "importAudit",
        tr("An audit file that accumlab.audit wrote of your own PyTorch loop: store it and show "
           "it against its exact big batch (Help → Audit your own loop)"));
  named(addOpenAction(tr("&Merge a run store…"), tr("Merge the runs of another run store"),
                      tr("Run stores (*.sqlite);;All files (*)"), t_.merge_store),
        "mergeStore",
        tr("Copy the runs of a store made elsewhere (another machine, a cluster job) into this "
           "one; runs it already holds are skipped (Help → On a cluster)"));
  recent_menu_ = file->addMenu(tr("Open &recent"));
  updateRecent();
  file->addSeparator();
  file->addAction(tr("Run &database…"), this, [this] { t_.choose_database(); });
  file->addSeparator();
  file->addMenu(export_menu_);
  if (t_.save_model) file->addAction(t_.save_model);
  file->addSeparator();
  file->addAction(tr("&Quit"), QKeySequence::Quit, w, &QWidget::close);
}

void MainMenus::buildViewMenu() {
  QMenu* view = t_.window->menuBar()->addMenu(tr("&View"));
  for (QDockWidget* dock : t_.window->findChildren<QDockWidget*>()) {
    view->addAction(dock->toggleViewAction());
  }
  view->addSeparator();
  view->addAction(tr("&Reset plot view"), QKeySequence(Qt::CTRL | Qt::Key_0), t_.plots,
                  &PlotGrid::resetView);
  view->addSeparator();
  view->addAction(t_.presentation->action());
  view->addMenu(t_.presentation->plotsMenu());
  // F11 also works when the menu bar is hidden by a full-screen window manager.
  t_.window->addAction(t_.presentation->action());
}

void MainMenus::buildHelpMenu() {
  QMenu* help = t_.window->menuBar()->addMenu(tr("&Help"));
  // The manual's pages, from the disk (docs/ in a build, share/doc/accumlab installed).
  QAction* here =
      help->addAction(tr("Manual for this &tab"), QKeySequence::HelpContents, this, [this] {
        openManualPage(t_.window, t_.current_page ? t_.current_page() : QStringLiteral("app.md"));
      });
  here->setObjectName("manualForThisTab");
  for (const ManualPage& page : manualPages()) {
    QAction* a = help->addAction(page.title, this,
                                 [this, file = page.file] { openManualPage(t_.window, file); });
    a->setData(page.file);
    a->setToolTip(manualPagePath(page.file));
  }
  help->addSeparator();
  help->addAction(tr("What the &plots show"), this,
                  [this] { showPlotHelp(t_.window, t_.plots->canvases()); });
  QAction* keys = help->addAction(tr("&Keyboard and mouse"), this, [this] { showShortcuts(); });
  keys->setObjectName("shortcutsHelp");
  help->addAction(tr("&About AccumLab"), this, [this] {
    QMessageBox::about(t_.window, tr("About AccumLab"),
                       tr("<b>AccumLab %1</b><p>A lab for gradient accumulation: train with "
                          "micro-batches of m, add up K of them per update, and watch the update "
                          "noise fall by K while the accumulated arm tracks the big batch.</p>"
                          "<p>AccumLab is free software under the GNU General Public License, "
                          "version 3 or (at your option) any later version "
                          "(GPL-3.0-or-later); it comes with ABSOLUTELY NO WARRANTY. "
                          "See <a href=\"https://www.gnu.org/licenses/gpl-3.0.html\">"
                          "the license</a> for details.</p>")
                           .arg(QApplication::applicationVersion()));
  });
}

QString MainMenus::shortcutsText() const {
  // Every action of the window that has a key, as the menus name it, so the list cannot
  // fall behind them.
  QMap<QString, QString> keys;
  for (const QAction* a : t_.window->findChildren<QAction*>()) {
    if (a->shortcut().isEmpty() || a->text().isEmpty()) continue;
    keys.insert(a->text().remove('&').remove(QChar(u'…')).trimmed(),
                a->shortcut().toString(QKeySequence::NativeText));
  }
  QString rows;
  for (auto it = keys.cbegin(); it != keys.cend(); ++it) {
    rows += QString("<tr><td><b>%1</b></td><td>%2</td></tr>")
                .arg(it.value().toHtmlEscaped(), it.key().toHtmlEscaped());
  }
  const QString mouse = tr(
      "<tr><td><b>Drag</b></td><td>move the plots along their axes</td></tr>"
      "<tr><td><b>Ctrl+wheel</b></td><td>zoom a plot (the wheel alone scrolls the page)</td></tr>"
      "<tr><td><b>Right-click</b></td><td>export or copy a plot</td></tr>"
      "<tr><td><b>Hover</b></td><td>each line's value at that point</td></tr>");
  return tr("<h3>Keys</h3><table cellspacing=6>%1</table><h3>Mouse on a plot</h3>"
            "<table cellspacing=6>%2</table>")
      .arg(rows, mouse);
}

void MainMenus::showShortcuts() {
  auto* box = new QMessageBox(QMessageBox::NoIcon, tr("Keyboard and mouse"), shortcutsText(),
                              QMessageBox::Close, t_.window);
  box->setObjectName("shortcutsDialog");
  box->setTextFormat(Qt::RichText);
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->open();
}

void MainMenus::updateRecent() {
  recent_menu_->clear();
  const QStringList files = t_.settings->recentFiles();
  for (const QString& path : files) {
    recent_menu_->addAction(path, this, [this, path] { t_.open_path(path); });
  }
  recent_menu_->setEnabled(!files.isEmpty());
}

}  // namespace accumlab::ui
