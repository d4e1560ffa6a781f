// SPDX-License-Identifier: GPL-3.0-or-later
#include "help/plot_help.h"

#include <QDialog>
#include <QDialogButtonBox>
#include <QScreen>
#include <QTextBrowser>
#include <QVBoxLayout>
#include <algorithm>

#include "plots/metric_canvas.h"

namespace accumlab::ui {

QDialog* showPlotHelp(QWidget* parent, const std::vector<MetricCanvas*>& canvases) {
  QString text;
  for (MetricCanvas* c : canvases) {
    text += "<h3>" + c->definition().title + "</h3><p>" + c->definition().explanation + "</p>";
  }
  auto* dialog = new QDialog(parent);
  dialog->setObjectName("plotHelp");
  dialog->setWindowTitle(QObject::tr("What the plots show"));
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  auto* view = new QTextBrowser(dialog);
  view->setObjectName("plotHelpText");
  view->setHtml(text);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
  QObject::connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::close);
  auto* layout = new QVBoxLayout(dialog);
  layout->addWidget(view);
  layout->addWidget(buttons);
  // Long explanations scroll inside; the dialog never outgrows the screen.
  const QRect screen =
      (parent && parent->screen() ? parent->screen() : dialog->screen())->availableGeometry();
  dialog->resize(std::min(720, screen.width() * 9 / 10), std::min(640, screen.height() * 8 / 10));
  dialog->open();
  return dialog;
}

}  // namespace accumlab::ui
