// SPDX-License-Identifier: GPL-3.0-or-later
// accumlab: the desktop app (ARCHITECTURE.md, "Threads"; docs/app.md).
#include <unistd.h>
#include <QApplication>
#include <QCoreApplication>
#include <QIcon>

#include <cstdio>

#include "accumlab_version.h"
#include "blas_core.h"
#include "stop_on_signal.h"
#include "window/app_options.h"
#include "window/main_window.h"

namespace {

// Answers --help and --version before QApplication exists: its platform plugin needs a
// display (xcb aborts without one), and these two print text only. Returns false to go on.
// Anything else, usage errors included, is parsed again once QApplication has taken out Qt's
// own options (-platform, -style, …), which a plain QCoreApplication leaves in.
bool answeredWithoutDisplay(int& argc, char** argv) {
  const QCoreApplication core(argc, argv);
  accumlab::ui::AppOptions options;
  QString message;
  if (accumlab::ui::parseAppOptions(QCoreApplication::arguments(), &options, &message) != -1) {
    return false;
  }
  std::printf("%s\n", qPrintable(message));
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  // OpenBLAS chose its kernels as the process loaded it: where it fell back to its generic
  // ones, start again with the CPU's (the same as accumlab-cli's runs, docs/performance.md).
  if (accumlab::chooseBlasCore()) ::execv("/proc/self/exe", argv);  // on failure, go on
  QCoreApplication::setApplicationName("AccumLab");
  QCoreApplication::setOrganizationName("AccumLab");
  QCoreApplication::setApplicationVersion(ACCUMLAB_VERSION_FULL);
  if (answeredWithoutDisplay(argc, argv)) return 0;
  QApplication app(argc, argv);
  QApplication::setApplicationDisplayName("AccumLab");
  QApplication::setWindowIcon(QIcon(":/icons/org.accumlab.AccumLab.svg"));
  // The desktop entry's id: Wayland shells match the window to its menu entry and icon.
  QGuiApplication::setDesktopFileName("org.accumlab.AccumLab");

  accumlab::ui::AppOptions options;
  QString message;
  const int code = accumlab::ui::parseAppOptions(app.arguments(), &options, &message);
  if (code == -1) {
    std::printf("%s\n", qPrintable(message));
    return 0;
  }
  if (code != 0) {
    std::fprintf(stderr, "accumlab: %s\n", qPrintable(message));
    return code;
  }
  accumlab::ui::MainWindow window;
  // Ctrl-C in the terminal or SIGTERM (a logout) closes the window as its Quit does: a run
  // stops at the next window boundary and is stored as `stopped`. The watcher thread queues
  // the close onto the GUI thread.
  accumlab::app::StopOnSignal on_signal(
      "accumlab", "closing; a run stops at the next window boundary", [&window] {
        QMetaObject::invokeMethod(&window, "closeWithoutAsking", Qt::QueuedConnection);
      });
  window.applyOptions(options);
  window.show();
  const int exit_code = QApplication::exec();
  const int signo = on_signal.signalReceived();
  return signo != 0 ? 128 + signo : exit_code;
}
