// SPDX-License-Identifier: GPL-3.0-or-later
// icon_png SVG SIZE OUT.png: renders the app's SVG icon at SIZE×SIZE for the hicolor theme
// (a build step; the installed PNG sizes come from the one SVG).
#include <QImage>
#include <QPainter>
#include <QSvgRenderer>
#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: icon_png SVG SIZE OUT.png\n");
    return 2;
  }
  QSvgRenderer svg(QString::fromLocal8Bit(argv[1]));
  if (!svg.isValid()) {
    std::fprintf(stderr, "icon_png: %s is not a valid SVG file\n", argv[1]);
    return 2;
  }
  const int size = std::atoi(argv[2]);
  if (size <= 0) {
    std::fprintf(stderr, "icon_png: the size '%s' is not a positive number\n", argv[2]);
    return 2;
  }
  QImage image(size, size, QImage::Format_ARGB32_Premultiplied);
  image.fill(Qt::transparent);
  QPainter painter(&image);
  painter.setRenderHint(QPainter::Antialiasing);
  svg.render(&painter);
  painter.end();
  if (!image.save(QString::fromLocal8Bit(argv[3]), "PNG")) {
    std::fprintf(stderr, "icon_png: cannot write %s\n", argv[3]);
    return 1;
  }
  return 0;
}
