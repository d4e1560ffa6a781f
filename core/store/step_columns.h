// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <vector>

#include "accumlab/records.h"

namespace accumlab::store {

/// One stored column of StepRecord: its SQL/CSV/JSON name and the member it holds (exactly
/// one of `real`, `integer` and `flag` is set).
struct StepColumn {
  const char* name;
  double StepRecord::*real;
  int64_t StepRecord::*integer;
  bool StepRecord::*flag;
  int since;  ///< the schema version that added the column
};

/// Every StepRecord field except `arm` (the run is the arm), in storage order: step,
/// samples_seen and wall_ms first, then the metrics of docs/measurements.md.
const std::vector<StepColumn>& stepColumns();

/// Returns the value of a column as a double (NaN stays NaN).
double columnValue(const StepRecord& record, const StepColumn& column);
/// Sets a column from a double (integers are rounded; NaN gives an integer its default).
void setColumnValue(StepRecord& record, const StepColumn& column, double value);

}  // namespace accumlab::store
