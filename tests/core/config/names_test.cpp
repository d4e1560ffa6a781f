// SPDX-License-Identifier: GPL-3.0-or-later
// Names<E> (accumlab/names.h): every enum written as text names each value once, reads each
// name back, and refuses other text with one sentence naming the accepted names.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "accumlab/experiment_config.h"
#include "accumlab/format_bytes.h"
#include "accumlab/input_error.h"
#include "accumlab/records.h"
#include "accumlab/run_exporter.h"
#include "accumlab/sweep.h"

namespace accumlab {
namespace {

/// Every value of E named once, each name parsed back to its value, `last` the last value.
template <typename E>
void expectNamesRoundTrip(E last) {
  const Names<E>& names = kNames<E>;
  std::set<std::string> seen;
  for (const auto& [value, name] : names.entries()) {
    EXPECT_TRUE(seen.insert(name).second) << "two values named " << name;
    EXPECT_EQ(toString(value), name);
    EXPECT_EQ(names.parse(name), value) << name;
  }
  // The table covers the enum: values 0..last, in order.
  ASSERT_EQ(names.entries().size(), static_cast<size_t>(last) + 1) << names.what();
  for (size_t i = 0; i < names.entries().size(); ++i) {
    EXPECT_EQ(static_cast<size_t>(names.entries()[i].first), i) << names.what();
  }
}

TEST(Names, EveryEnumNamesEachValueOnceAndParsesItBack) {
  expectNamesRoundTrip(ArmKind::kPitfallSchedulePerMicro);
  expectNamesRoundTrip(OptimizerKind::kAdamW);
  expectNamesRoundTrip(LrSchedule::kCosine);
  expectNamesRoundTrip(LrScaling::kSqrt);
  expectNamesRoundTrip(WindowPolicy::kDrop);
  expectNamesRoundTrip(DType::kFloat64);
  expectNamesRoundTrip(Task::kRegression);
  expectNamesRoundTrip(TextSplit::kParagraph);
  expectNamesRoundTrip(TokenLoss::kSequences);
  expectNamesRoundTrip(ArmStatus::kInterrupted);
  expectNamesRoundTrip(EventKind::kOther);
  expectNamesRoundTrip(SweepStatus::kInterrupted);
  expectNamesRoundTrip(ExportFormat::kTensorBoard);
}

TEST(Names, TheStoredNamesAreTheInterface) {
  EXPECT_EQ(toString(WindowPolicy::kFlushDivideByK), "flush-divide-by-K");
  EXPECT_EQ(toString(ArmKind::kPitfallMeanOfMeans), "pitfall:mean-of-means");
  EXPECT_EQ(toString(EventKind::kOutOfMemory), "out_of_memory");
  EXPECT_EQ(toString(SweepStatus::kReached), "reached");
  EXPECT_EQ(toString(ArmStatus::kDiverged), "diverged");
  EXPECT_EQ(toString(ExportFormat::kTensorBoard), "tensorboard");
}

TEST(Names, UnknownTextIsOneSentenceNamingTheAcceptedNames) {
  try {
    parseWindowPolicy("flush");
    FAIL() << "parsed an unknown window policy";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(),
                 "window policy 'flush' is not known: use one of stream, flush-exact, "
                 "flush-divide-by-K, drop");
  }
  EXPECT_THROW(parseExportFormat("xml"), InputError);
  EXPECT_THROW(parseSweepStatus("done"), InputError);
  EXPECT_THROW(parseArmStatus("paused"), InputError);
  // A newer store's event kind reads as kOther, not as an error.
  EXPECT_EQ(parseEventKind("rebalanced"), EventKind::kOther);
}

TEST(FormatBytes, WritesKiBMiBAndGiBWithTheirDigits) {
  EXPECT_EQ(formatBytes(0), "0 KiB");
  EXPECT_EQ(formatBytes(70 * 1024.0), "70 KiB");
  EXPECT_EQ(formatBytes(18.3 * 1024 * 1024), "18.3 MiB");
  EXPECT_EQ(formatBytes(1024.0 * 1024 * 1024 - 1), "1024.0 MiB");  // rounds, stays in MiB
  EXPECT_EQ(formatBytes(1.25 * 1024 * 1024 * 1024), "1.25 GiB");
  // Tables keep MiB as their smallest unit.
  EXPECT_EQ(formatBytes(100 * 1024.0, ByteUnit::kMiB), "0.1 MiB");
  EXPECT_EQ(formatBytes(64.0 * 1024 * 1024, ByteUnit::kMiB), "64.0 MiB");
  EXPECT_EQ(formatBytes(3.0 * 1024 * 1024 * 1024, ByteUnit::kMiB), "3.00 GiB");
}

}  // namespace
}  // namespace accumlab
