# SPDX-License-Identifier: GPL-3.0-or-later
"""One window's comparison: the loop's gradient against the exact big batch and against each
wrong recipe's prediction (docs/pitfalls.md gives each recipe's gradient).

Every vector here is one flat float64 tensor over all parameters. With ḡ_i the mean gradient
of micro-batch i (its loss's gradient per counted sample or token), n_i its count, N = Σ n_i,
K the loop's regular number of micro-batches per window and R = Σ n_i ḡ_i / N the window as
one batch:
  sum            Σ ḡ_i
  last-only      ḡ_k
  double-last    (Σ ḡ_i + ḡ_k) / K
  mean-of-means  Σ ḡ_i / K
  clip-each      Σ (n_i / N) clip(ḡ_i), clip(g) = g · min(1, c / (|g| + 1e-6))
  no-zero        R + the gradient left from the previous update (what zero_grad() removes)
schedule-per-micro is told by the learning rates, not by the gradient (judge.py).
"""
import math

# The recipes predicted from gradients, in the order a tie is broken.
GRADIENT_RECIPES = ("sum", "last-only", "double-last", "mean-of-means", "no-zero", "clip-each")
# PyTorch's clip_grad_norm_ adds this to the norm before dividing.
CLIP_EPS = 1e-6


def _finite(x):
    return x if isinstance(x, float) and math.isfinite(x) else None


def compare(loop, means, counts, regular_k, clip_norm, previous, tolerance):
    """The window's record fields: the reference's and the loop's norms, the loop's relative
    difference to the reference and to each recipe (None where a recipe cannot be predicted),
    the scale and cosine of the loop against the reference, and the names within
    `tolerance` (relative to |R|)."""
    total = float(sum(counts))
    reference = sum(m * (n / total) for m, n in zip(means, counts))
    summed = sum(means)
    predictions = {
        "sum": summed,
        "last-only": means[-1],
        "double-last": (summed + means[-1]) / regular_k,
        "mean-of-means": summed / regular_k,
        "no-zero": reference + previous if previous is not None else None,
        "clip-each": None,
    }
    if clip_norm is not None:
        clipped = 0
        for m, n in zip(means, counts):
            factor = min(1.0, clip_norm / (m.norm().item() + CLIP_EPS))
            clipped = clipped + m * (factor * n / total)
        predictions["clip-each"] = clipped
    ref_norm = reference.norm().item()
    loop_norm = loop.norm().item()
    scale_ref = ref_norm if ref_norm > 0 else 1.0
    rel = (loop - reference).norm().item() / scale_ref
    dot = loop.dot(reference).item()
    recipes = {name: None if p is None else (loop - p).norm().item() / scale_ref
               for name, p in predictions.items()}
    match = (["exact"] if rel <= tolerance else []) + \
        [name for name in GRADIENT_RECIPES
         if recipes[name] is not None and recipes[name] <= tolerance]
    return {
        "ref_norm": ref_norm,
        "loop_norm": loop_norm,
        "rel_diff": rel,
        "scale": _finite(dot / (ref_norm * ref_norm)) if ref_norm > 0 else None,
        "cosine": _finite(dot / (ref_norm * loop_norm)) if ref_norm * loop_norm > 0 else None,
        "recipes": {k: _finite(v) if v is not None else None for k, v in recipes.items()},
        "match": match,
    }
