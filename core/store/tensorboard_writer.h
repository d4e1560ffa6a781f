// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "store/export_formats.h"

namespace accumlab::store {

/// TensorBoard's event files are TFRecord files: each record is the data's length (uint64,
/// little-endian), the masked CRC-32C of those 8 bytes, the data, and the masked CRC-32C of
/// the data. This is the mask: the CRC rotated right by 15 bits plus 0xa282ead8.
uint32_t maskedCrc32c(std::string_view data);
/// Appends one TFRecord holding `data` to `out`.
void appendTfRecord(std::string& out, std::string_view data);

/// The log folder of one run inside the export folder, "<run id>-<arm>" (e.g. "3-accum"):
/// TensorBoard's name for the run.
std::string tensorBoardRunName(const RunRow& row);

/// Writes one TensorBoard log folder per run into `folder` (created when missing), each with
/// one event file: every stored step metric, evaluation and probe as scalars against
/// optimizer steps and again against samples seen ("by_samples/…"), the config, the run and
/// its summary as text, and the events as text at their step. An export again replaces the
/// runs' event files. Throws InputError, in one sentence naming the folder, when it cannot
/// be written (a file in its place, no permission, a full disk), or when this build has no
/// TensorBoard export (configured with -DACCUMLAB_TENSORBOARD=OFF).
void writeTensorBoard(const std::vector<ExportedRun>& runs, const std::string& folder);

}  // namespace accumlab::store
