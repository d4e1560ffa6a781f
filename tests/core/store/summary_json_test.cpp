// An arm's summary as JSON (core/store/summary_json.cpp): the memory fields both ways.
#include "store/summary_json.h"

#include <gtest/gtest.h>

namespace accumlab {
namespace {

TEST(SummaryJson, PeakTensorBytesRoundTripsAndIsNullWhenNotMeasured) {
  ArmSummary a;
  a.arm = ArmKind::kBigBatch;
  a.peak_memory_bytes = 360 << 20;
  a.peak_tensor_bytes = (int64_t{5} << 30) + 7;  // above 32 bits
  const nlohmann::json j = store::armSummaryToJson(a);
  EXPECT_EQ(j["peak_tensor_bytes"].get<int64_t>(), a.peak_tensor_bytes);
  EXPECT_EQ(j["peak_memory_bytes"].get<int64_t>(), a.peak_memory_bytes);
  const ArmSummary back = store::armSummaryFromJson(j);
  EXPECT_EQ(back.peak_tensor_bytes, a.peak_tensor_bytes);
  EXPECT_EQ(back.peak_memory_bytes, a.peak_memory_bytes);

  a.peak_tensor_bytes = -1;
  const nlohmann::json unmeasured = store::armSummaryToJson(a);
  EXPECT_TRUE(unmeasured["peak_tensor_bytes"].is_null());
  EXPECT_EQ(store::armSummaryFromJson(unmeasured).peak_tensor_bytes, -1);
  nlohmann::json old = unmeasured;
  old.erase("peak_tensor_bytes");  // a summary stored before the field existed
  EXPECT_EQ(store::armSummaryFromJson(old).peak_tensor_bytes, -1);
}

}  // namespace
}  // namespace accumlab
