// SPDX-License-Identifier: GPL-3.0-or-later
#include "experiment/source_catalog.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <exception>

#include "accumlab/text_file.h"

namespace accumlab::ui {

namespace {
QString tr(const char* text) { return QCoreApplication::translate("SourceCatalog", text); }

bool looksLikeIdxFolder(const QDir& dir) {
  return !dir.entryList({"*-ubyte", "*-ubyte.gz", "*.idx*"}, QDir::Files).isEmpty();
}

bool looksLikeCifarFolder(const QDir& dir) {
  return dir.exists("data_batch_1.bin") || dir.exists("test_batch.bin");
}

// A .txt file is a table when its first line has a comma or a tab, else text to train on.
bool firstLineHasDelimiter(const QString& path) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) return true;  // let the CSV reader name the problem
  const QByteArray line = file.readLine(65536);
  return line.contains(',') || line.contains('\t');
}
}  // namespace

bool fashionMnistInstalled() { return QFileInfo(kFashionMnistDir).isDir(); }

std::vector<SourceChoice> builtinDatasets() {
  std::vector<SourceChoice> out;
  if (fashionMnistInstalled()) {
    out.push_back({tr("Fashion-MNIST (60k images, 10 classes)"), "fashion-mnist",
                   tr("28×28 grey images of clothes from %1").arg(kFashionMnistDir)});
  }
  if (QFileInfo(QString(kFortunesDir) + "/fortunes").isFile()) {
    out.push_back({tr("Fortunes (text, 15k quotes)"), "fortunes",
                   tr("Quotes from %1, one line to a paragraph each: sequences of very "
                      "different lengths, for the charlm models (docs/sequences.md)")
                       .arg(kFortunesDir)});
  }
  out.push_back({tr("Spirals (synthetic, 2-D)"), "spirals",
                 tr("Interleaved spirals: small, fast, clearly non-linear")});
  out.push_back({tr("Blobs (synthetic)"), "blobs", tr("Gaussian clusters, one per class")});
  out.push_back({tr("Blobs as 28×28 images (synthetic)"), "blobs:1x28x28",
                 tr("Gaussian clusters shaped like images: try the CNN models on them")});
  out.push_back({tr("Linear regression (synthetic)"), "linreg",
                 tr("y = w·x + noise with known noise: the gradient-noise estimators have "
                    "analytic values here")});
  return out;
}

std::vector<SourceChoice> builtinModels() {
  return {
      {tr("MLP 128-128"), "mlp",
       tr("A multi-layer perceptron with two hidden layers of 128 units")},
      {tr("MLP 256-128"), "mlp:256,128", tr("Two hidden layers of 256 and 128 units")},
      {tr("Logistic / linear regression"), "logreg", tr("One linear layer")},
      {tr("CNN (LeNet-like)"), "cnn", tr("For image datasets (e.g. Fashion-MNIST)")},
      {tr("CNN with BatchNorm"), "cnn_bn",
       tr("BatchNorm normalises per micro-batch, so accumulation no longer equals the big "
          "batch: watch the weight-difference plot")},
      {tr("Character LM (GRU)"), "charlm",
       tr("For text: byte embedding, a GRU of 64 units, the next byte over 256 values")},
      {tr("Character LM (transformer)"), "charlm-transformer",
       tr("For text: two causal self-attention layers of width 64")},
  };
}

bool openSource(const QString& path, OpenedSource* out, QString* error) {
  const QFileInfo info(path);
  if (!info.exists()) {
    *error = tr("%1 does not exist.").arg(path);
    return false;
  }
  const QString abs = info.absoluteFilePath();
  if (info.isDir()) {
    const QDir dir(abs);
    if (looksLikeCifarFolder(dir) || dir.exists("cifar-10-batches-bin")) {
      const QString folder =
          dir.exists("cifar-10-batches-bin") ? dir.filePath("cifar-10-batches-bin") : abs;
      *out = {false, "cifar10:" + folder, "CIFAR-10: " + info.fileName()};
      return true;
    }
    if (looksLikeIdxFolder(dir)) {
      *out = {false, "idx:" + abs, "IDX: " + info.fileName()};
      return true;
    }
    *error = tr("Folder %1 holds neither IDX files (*-ubyte, *-ubyte.gz) nor CIFAR-10 binary "
                "batches (data_batch_1.bin); pick a folder with one of them.")
                 .arg(abs);
    return false;
  }
  const QString suffix = info.suffix().toLower();
  const QString name = info.fileName().toLower();
  if (suffix == "pt" || suffix == "pth") {
    *out = {true, "torchscript:" + abs, "TorchScript: " + info.fileName()};
    return true;
  }
  if (suffix == "txt" && !firstLineHasDelimiter(abs)) {
    try {
      checkTextFile(abs.toStdString(), "dataset");
    } catch (const std::exception& e) {
      *error = QString::fromStdString(e.what());
      return false;
    }
    *out = {false, "text:" + abs, "Text: " + info.fileName()};
    return true;
  }
  if (suffix == "csv" || suffix == "tsv" || suffix == "txt") {
    // Random bytes would be accepted here and fail at Run as an "empty cell".
    try {
      checkTextFile(abs.toStdString(), "CSV");
    } catch (const std::exception& e) {
      *error = QString::fromStdString(e.what());
      return false;
    }
    *out = {false, "csv:" + abs, "CSV: " + info.fileName()};
    return true;
  }
  if (name.contains("-ubyte") || name.contains(".idx")) {
    *out = {false, "idx:" + info.absolutePath(), "IDX: " + info.dir().dirName()};
    return true;
  }
  if (name.endsWith(".bin") && looksLikeCifarFolder(info.dir())) {
    *out = {false, "cifar10:" + info.absolutePath(), "CIFAR-10: " + info.dir().dirName()};
    return true;
  }
  *error = tr("%1 is not a CSV or text file, an IDX or CIFAR-10 file or folder, or a TorchScript "
              "model (.pt); open one of those.")
               .arg(abs);
  return false;
}

}  // namespace accumlab::ui
