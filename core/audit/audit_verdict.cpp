// SPDX-License-Identifier: GPL-3.0-or-later
#include "accumlab/audit_verdict.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <vector>

namespace accumlab {
namespace {

/// The recipes predicted from gradients, in the order a tie is broken.
const std::vector<std::string> kAuditRecipes = {"sum",           "last-only", "double-last",
                                                "mean-of-means", "no-zero",   "clip-each"};

/// Each wrong recipe in the loop's own words (docs/pitfalls.md).
const std::map<std::string, std::string> kAuditMistakes = {
    {"sum", "each micro-batch's mean loss is backpropagated without dividing by K"},
    {"last-only",
     "zero_grad() runs inside the micro-batch loop, so only the last micro-batch counts"},
    {"double-last", "the last micro-batch's loss is backpropagated twice"},
    {"mean-of-means",
     "each micro-batch's mean loss is divided by K, which mis-weights micro-batches of "
     "different sizes and under-scales a window of fewer than K"},
    {"no-zero",
     "zero_grad() is never called between updates, so every update repeats the earlier "
     "gradients"},
    {"clip-each", "each micro-batch's gradient is clipped before it is added"},
    {"schedule-per-micro", "the learning-rate scheduler is stepped after every micro-batch"}};

/// What would tell a recipe apart from the exact big batch where no window did.
const std::map<std::string, std::string> kAuditTellsApart = {
    {"sum", "a window of more than one micro-batch"},
    {"last-only", "a window of more than one micro-batch"},
    {"double-last", "a window of more than one micro-batch"},
    {"mean-of-means",
     "an uneven window (a short last micro-batch, fewer micro-batches at an epoch's end) or "
     "variable-length sequences"},
    {"no-zero", "a second update"},
    {"clip-each", "a micro-batch whose gradient norm exceeds the clip norm"},
    {"schedule-per-micro", "a learning-rate schedule that changes the rate between updates"}};

std::string auditPrinted(const char* format, double a) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, a);
  return buf;
}

std::string auditOrUnknown(double v, const char* format) {
  return std::isfinite(v) ? auditPrinted(format, v) : "?";
}

bool auditLrChangedInside(const AuditWindow& w) {
  std::vector<double> rates;
  for (double r : w.lrs) {
    if (std::isfinite(r)) rates.push_back(r);
  }
  if (std::isfinite(w.lr)) rates.push_back(w.lr);
  if (rates.size() < 2) return false;
  const auto [lo, hi] = std::minmax_element(rates.begin(), rates.end());
  double largest = 0;
  for (double r : rates) largest = std::max(largest, std::abs(r));
  return *hi - *lo > 1e-12 * largest;
}

double auditMedian(std::vector<double> v) {
  v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return !std::isfinite(x); }), v.end());
  if (v.empty()) return kNaN;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string auditJoined(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : sep) + p;
  return out;
}

bool auditMatched(const AuditWindow& w, const std::string& name) {
  return std::find(w.match.begin(), w.match.end(), name) != w.match.end();
}

bool auditPredicted(const AuditWindow& w, const std::string& name) {
  for (const auto& [r, d] : w.recipes) {
    if (r == name) return std::isfinite(d);
  }
  return false;
}

/// Exact and the recipes that matched every audited window where they were predicted, and
/// were predicted at one at least (no-zero is not where the previous update's gradient was
/// not kept, clip-each not before a clip norm was seen).
std::set<std::string> auditCandidatesOf(const std::vector<const AuditWindow*>& audited) {
  std::set<std::string> out;
  if (std::all_of(audited.begin(), audited.end(),
                  [](const AuditWindow* w) { return auditMatched(*w, "exact"); })) {
    out.insert("exact");
  }
  for (const auto& r : kAuditRecipes) {
    bool told = false;
    bool all = true;
    for (const AuditWindow* w : audited) {
      if (!auditPredicted(*w, r)) continue;
      told = true;
      all = all && auditMatched(*w, r);
    }
    if (told && all) out.insert(r);
  }
  return out;
}

std::string auditSentenceOf(const AuditVerdict& v, const std::vector<std::string>& bn) {
  const std::string seen =
      std::to_string(v.audited) + " audited window" + (v.audited == 1 ? "" : "s");
  if (v.verdict == "exact") {
    return "Your loop's gradient is the exact big batch's at all " + seen +
           " (largest relative difference " + auditPrinted("%.1e", v.largest_rel_diff) + ").";
  }
  if (v.verdict == "batch-dependent") {
    return "Your loop accumulates exactly (largest relative difference " +
           auditPrinted("%.1e", v.largest_rel_diff) + " over " + seen +
           "), but the model normalises over its batch (" + auditJoined(bn, ", ") +
           "): a micro-batch's statistics are not the big batch's, so accumulation cannot "
           "equal the big batch there; that is the model, not a bug in the loop.";
  }
  if (v.verdict == "schedule-per-micro") {
    return "Your loop's gradient is the exact big batch's, but the learning rate changed inside "
           "a window: " +
           kAuditMistakes.at(v.verdict) +
           " (schedule-per-micro); step it once per update, after optimizer.step().";
  }
  if (v.verdict == "unknown") {
    return "Your loop matches no known recipe: its gradient is " +
           auditOrUnknown(v.scale, "%.3g×") + " the exact big batch's (cosine " +
           auditOrUnknown(v.cosine, "%.6f") + ", relative difference " +
           auditOrUnknown(v.rel_diff, "%.3g") + ", medians over " + seen + ").";
  }
  return "Your loop matches the wrong recipe " + v.verdict + ": " + kAuditMistakes.at(v.verdict) +
         " (relative difference to the exact big batch up to " +
         auditPrinted("%.3g", v.largest_rel_diff) + " over " + seen + "); see docs/pitfalls.md.";
}

}  // namespace

AuditVerdict judgeAudit(const AuditFile& file) {
  AuditVerdict v;
  std::vector<const AuditWindow*> audited;
  for (const AuditWindow& w : file.windows) {
    if (w.audited) audited.push_back(&w);
  }
  v.windows = static_cast<int64_t>(file.windows.size());
  v.audited = static_cast<int64_t>(audited.size());
  std::vector<double> diffs, scales, cosines;
  for (const AuditWindow* w : audited) {
    diffs.push_back(w->rel_diff);
    scales.push_back(w->scale);
    cosines.push_back(w->cosine);
    if (std::isfinite(w->rel_diff)) {
      v.largest_rel_diff =
          std::isnan(v.largest_rel_diff) ? w->rel_diff : std::max(v.largest_rel_diff, w->rel_diff);
    }
  }
  v.scale = auditMedian(scales);
  v.cosine = auditMedian(cosines);
  v.rel_diff = auditMedian(diffs);
  if (audited.empty()) {
    v.verdict = v.accumulation = "unknown";
    v.sentence =
        "The audit saw no update with a loss it could follow: pass the criterion as loss=, or "
        "return an output with a loss from the model.";
    return v;
  }
  const std::set<std::string> candidates = auditCandidatesOf(audited);
  bool lr_inside = false;
  std::set<double> step_rates;
  size_t most_micro = 0;
  for (const AuditWindow* w : audited) {
    lr_inside = lr_inside || auditLrChangedInside(*w);
    step_rates.insert(w->lr);
    most_micro = std::max(most_micro, w->counts.size());
  }
  const bool lr_moved = step_rates.size() > 1 || lr_inside;
  if (candidates.count("exact")) {
    v.verdict = lr_inside ? "schedule-per-micro" : "exact";
    std::vector<std::string> alike;
    for (const auto& r : kAuditRecipes) {
      if (candidates.count(r)) alike.push_back(r);
    }
    if (!lr_moved && most_micro > 1) alike.push_back("schedule-per-micro");
    if (!alike.empty() && v.verdict == "exact") {
      std::vector<std::string> shows;
      for (const auto& r : alike) shows.push_back(r + " shows at " + kAuditTellsApart.at(r));
      v.note = "These windows cannot tell it apart from " + auditJoined(alike, ", ") + "; " +
               auditJoined(shows, "; ") + ".";
    }
  } else {
    v.verdict = "unknown";
    for (const auto& r : kAuditRecipes) {
      if (candidates.count(r)) {
        v.verdict = r;
        break;
      }
    }
  }
  v.accumulation = v.verdict;
  if (!file.batch_dependent.empty() && v.verdict == "exact") v.verdict = "batch-dependent";
  v.sentence = auditSentenceOf(v, file.batch_dependent);
  return v;
}

}  // namespace accumlab
