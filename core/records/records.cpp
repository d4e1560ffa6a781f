#include "accumlab/records.h"

#include <cmath>

#include "accumlab/input_error.h"

namespace accumlab {
namespace {

const char* const kStatusNames[] = {"running",  "finished", "stopped",
                                    "diverged", "failed",   "interrupted"};
// In EventKind's order, up to kOther.
const char* const kEventNames[] = {"micro_batch", "accum",         "pause",   "resume",  "resumed",
                                   "stop",        "rejected",      "model",   "dropped", "diverged",
                                   "failed",      "out_of_memory", "workers", "other"};
static_assert(sizeof kEventNames / sizeof *kEventNames ==
              static_cast<size_t>(EventKind::kOther) + 1);

}  // namespace

std::string toString(ArmStatus v) { return kStatusNames[static_cast<int>(v)]; }

ArmStatus parseArmStatus(const std::string& s) {
  for (int i = 0; i < 6; ++i) {
    if (s == kStatusNames[i]) return static_cast<ArmStatus>(i);
  }
  throw InputError("run status '" + s + "' is not known");
}

std::string toString(EventKind v) { return kEventNames[static_cast<int>(v)]; }

EventKind parseEventKind(const std::string& s) {
  for (int i = 0; i < static_cast<int>(EventKind::kOther); ++i) {
    if (s == kEventNames[i]) return static_cast<EventKind>(i);
  }
  return EventKind::kOther;
}

std::string armSizesText(const ArmSummary& a, const std::string& x) {
  std::string text = std::to_string(a.micro_batch) + x + std::to_string(a.accum);
  if (a.memory_piece <= 0 || a.memory_piece >= a.micro_batch) return text;
  const int64_t per_batch = (a.micro_batch + a.memory_piece - 1) / a.memory_piece;
  const bool even = a.micro_batch % a.memory_piece == 0;
  return text + " (as " + (even ? "" : "≤") + std::to_string(a.memory_piece) + x +
         std::to_string(per_batch * a.accum) + ")";
}

}  // namespace accumlab
