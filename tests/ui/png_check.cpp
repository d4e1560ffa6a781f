// SPDX-License-Identifier: GPL-3.0-or-later
// Checks that a screenshot of the app shows plotted data: not blank, not one colour, and
// with enough pixels in each arm's colour. Usage: png_check FILE.png
#include <QColor>
#include <QImage>
#include <QSet>
#include <cstdio>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: png_check FILE.png\n");
    return 2;
  }
  const QImage image(QString::fromLocal8Bit(argv[1]));
  if (image.isNull()) {
    std::fprintf(stderr, "png_check: %s is not a readable image\n", argv[1]);
    return 1;
  }
  // The arm colours of plots/arm_style.cpp; a plotted run draws hundreds of pixels of each.
  const QRgb arms[] = {0xE15759, 0x4E79A7, 0x59A14F};
  constexpr int kMinArmPixels = 200;
  constexpr int kMinColours = 64;
  QSet<QRgb> colours;
  int arm_pixels[3] = {0, 0, 0};
  for (int y = 0; y < image.height(); ++y) {
    for (int x = 0; x < image.width(); ++x) {
      const QRgb p = image.pixel(x, y) & 0xFFFFFF;
      colours.insert(p);
      for (int a = 0; a < 3; ++a) {
        if (p == arms[a]) ++arm_pixels[a];
      }
    }
  }
  std::printf("%dx%d, %d colours, arm pixels %d/%d/%d\n", image.width(), image.height(),
              static_cast<int>(colours.size()), arm_pixels[0], arm_pixels[1], arm_pixels[2]);
  if (colours.size() < kMinColours) {
    std::fprintf(stderr, "png_check: only %d colours: the window is blank\n",
                 static_cast<int>(colours.size()));
    return 1;
  }
  for (int a = 0; a < 3; ++a) {
    if (arm_pixels[a] < kMinArmPixels) {
      std::fprintf(stderr, "png_check: arm %d has %d pixels of its colour: nothing plotted\n", a,
                   arm_pixels[a]);
      return 1;
    }
  }
  return 0;
}
