# SPDX-License-Identifier: GPL-3.0-or-later
"""The verdict on an audited loop from its windows (docs/audit.md, "Verdicts").

accumlab-cli audit applies the same rule to the same records (core/audit/audit_verdict.cpp).
A recipe is a candidate when it matched, within rounding, every audited window that
could predict it. Exact among
the candidates gives `exact`, or `schedule-per-micro` when the learning rate changed inside a
window; otherwise the first candidate in GRADIENT_RECIPES' order; none gives `unknown`. A
model that normalises over its batch turns `exact` into `batch-dependent`.
"""
import statistics

from ._window import GRADIENT_RECIPES

VERDICTS = ("exact",) + GRADIENT_RECIPES + ("schedule-per-micro", "batch-dependent", "unknown")

# What each wrong recipe is, in the loop's own words (docs/pitfalls.md, "The mistakes").
MISTAKES = {
    "sum": "each micro-batch's mean loss is backpropagated without dividing by K",
    "last-only": "zero_grad() runs inside the micro-batch loop, so only the last micro-batch "
                 "counts",
    "double-last": "the last micro-batch's loss is backpropagated twice",
    "mean-of-means": "each micro-batch's mean loss is divided by K, which mis-weights "
                     "micro-batches of different sizes and under-scales a window of fewer than "
                     "K",
    "no-zero": "zero_grad() is never called between updates, so every update repeats the "
               "earlier gradients",
    "clip-each": "each micro-batch's gradient is clipped before it is added",
    "schedule-per-micro": "the learning-rate scheduler is stepped after every micro-batch",
}

# What would tell a recipe apart from the exact big batch where no window did.
TELLS_APART = {
    "sum": "a window of more than one micro-batch",
    "last-only": "a window of more than one micro-batch",
    "double-last": "a window of more than one micro-batch",
    "mean-of-means": "an uneven window (a short last micro-batch, fewer micro-batches at an "
                     "epoch's end) or variable-length sequences",
    "no-zero": "a second update",
    "clip-each": "a micro-batch whose gradient norm exceeds the clip norm",
    "schedule-per-micro": "a learning-rate schedule that changes the rate between updates",
}


def _candidates(audited):
    """Exact and the recipes that matched every audited window where they were predicted,
    and were predicted at one at least (no-zero is not where the previous update's gradient
    was not kept, clip-each not before a clip norm was seen)."""
    out = {"exact"} if all("exact" in w["match"] for w in audited) else set()
    for r in GRADIENT_RECIPES:
        told = [w for w in audited if (w.get("recipes") or {}).get(r) is not None]
        if told and all(r in w["match"] for w in told):
            out.add(r)
    return out


def _lr_changed_inside(window):
    rates = list(window.get("lrs") or []) + [window.get("lr")]
    rates = [r for r in rates if r is not None]
    return len(rates) > 1 and max(rates) - min(rates) > 1e-12 * max(abs(r) for r in rates)


def _median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def judge(header, windows):
    """The verdict of an audit: a dict with verdict, accumulation (the verdict on the
    accumulation alone), sentence, note, the counts of windows and the figures behind it."""
    audited = [w for w in windows if w.get("audited")]
    out = {"windows": len(windows), "audited": len(audited), "note": ""}
    diffs = [w["rel_diff"] for w in audited if w.get("rel_diff") is not None]
    out["largest_rel_diff"] = max(diffs) if diffs else None
    out["scale"] = _median(w.get("scale") for w in audited)
    out["cosine"] = _median(w.get("cosine") for w in audited)
    out["rel_diff"] = _median(diffs)
    if not audited:
        out.update(verdict="unknown", accumulation="unknown",
                   sentence="The audit saw no update with a loss it could follow: pass the "
                            "criterion as loss=, or return an output with a loss from the "
                            "model.")
        return out
    candidates = _candidates(audited)
    lr_inside = any(_lr_changed_inside(w) for w in audited)
    lr_moved = len({w.get("lr") for w in audited}) > 1 or lr_inside
    if "exact" in candidates:
        verdict = "schedule-per-micro" if lr_inside else "exact"
        alike = [r for r in GRADIENT_RECIPES if r in candidates]
        if not lr_moved and max(len(w.get("counts", [])) for w in audited) > 1:
            alike.append("schedule-per-micro")
        if alike and verdict == "exact":
            out["note"] = "These windows cannot tell it apart from " + ", ".join(alike) + \
                "; " + "; ".join("%s shows at %s" % (r, TELLS_APART[r]) for r in alike) + "."
    else:
        verdict = next((r for r in GRADIENT_RECIPES if r in candidates), "unknown")
    out["accumulation"] = verdict
    bn = header.get("batch_dependent") or []
    if bn and verdict == "exact":
        verdict = "batch-dependent"
    out["verdict"] = verdict
    out["sentence"] = _sentence(verdict, out, bn)
    return out


def _sentence(verdict, out, bn):
    largest = out["largest_rel_diff"]
    seen = "%d audited window%s" % (out["audited"], "" if out["audited"] == 1 else "s")
    if verdict == "exact":
        return ("Your loop's gradient is the exact big batch's at all %s (largest relative "
                "difference %.1e)." % (seen, largest))
    if verdict == "batch-dependent":
        return ("Your loop accumulates exactly (largest relative difference %.1e over %s), but "
                "the model normalises over its batch (%s): a micro-batch's statistics are not "
                "the big batch's, so accumulation cannot equal the big batch there; that is "
                "the model, not a bug in the loop." % (largest, seen, ", ".join(bn)))
    if verdict == "schedule-per-micro":
        return ("Your loop's gradient is the exact big batch's, but the learning rate changed "
                "inside a window: %s (schedule-per-micro); step it once per update, after "
                "optimizer.step()." % MISTAKES[verdict])
    if verdict == "unknown":
        return ("Your loop matches no known recipe: its gradient is %s the exact big batch's "
                "(cosine %s, relative difference %s, medians over %s)."
                % (_fmt(out["scale"], "%.3g×"), _fmt(out["cosine"], "%.6f"),
                   _fmt(out["rel_diff"], "%.3g"), seen))
    return ("Your loop matches the wrong recipe %s: %s (relative difference to the exact big "
            "batch up to %.3g over %s); see docs/pitfalls.md."
            % (verdict, MISTAKES[verdict], largest, seen))


def _fmt(value, pattern):
    return "?" if value is None else pattern % value
