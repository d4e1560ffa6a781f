// accumlab: the desktop app (DESIGN.md §5, §8).
#include <QApplication>
#include <cstdio>

#include "window/app_options.h"
#include "window/main_window.h"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName("AccumLab");
  QApplication::setOrganizationName("AccumLab");
  QApplication::setApplicationVersion("0.1.0");
  QApplication::setApplicationDisplayName("AccumLab");

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
  window.applyOptions(options);
  window.show();
  return QApplication::exec();
}
