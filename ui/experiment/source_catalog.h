// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <vector>

#include "accumlab/experiment_config.h"

namespace accumlab::ui {

/// A dataset or model the pickers offer: what people read and the SPEC passed to core.
struct SourceChoice {
  QString label;
  QString spec;
  QString tooltip;
};

/// True when the Fashion-MNIST files are installed.
bool fashionMnistInstalled();
/// The built-in datasets; Fashion-MNIST first when installed.
std::vector<SourceChoice> builtinDatasets();
/// The built-in models.
std::vector<SourceChoice> builtinModels();

/// What a file or folder given by the user (open dialog, drag & drop) is.
struct OpenedSource {
  bool is_model = false;  ///< a TorchScript model rather than a dataset
  QString spec;           ///< e.g. "csv:/data/x.csv", "idx:/data/mnist", "torchscript:/m.pt"
  QString label;          ///< a short name for the picker
};
/// Classifies `path`; returns false with a one-sentence `error` for anything else.
bool openSource(const QString& path, OpenedSource* out, QString* error);

}  // namespace accumlab::ui
