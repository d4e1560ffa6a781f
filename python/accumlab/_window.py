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

import torch

# The recipes predicted from gradients, in the order a tie is broken.
GRADIENT_RECIPES = ("sum", "last-only", "double-last", "mean-of-means", "no-zero", "clip-each")
# PyTorch's clip_grad_norm_ adds this to the norm before dividing.
CLIP_EPS = 1e-6


def _finite(x):
    return x if isinstance(x, float) and math.isfinite(x) else None


def _combination(means, coefficients):
    """Σ c_i · means[i], by axpys (cheaper than a matrix product of so few rows)."""
    out = means[0] * coefficients[0]
    for row, c in zip(means[1:], coefficients[1:]):
        out.add_(row, alpha=c)
    return out


def _norm(x):
    return math.sqrt(max(x.dot(x).item(), 0.0))


def _distance(scratch, loop, terms):
    """|loop − Σ c · v| over the (v, c) in `terms`, in one reused buffer."""
    scratch.copy_(loop)
    for v, c in terms:
        scratch.sub_(v, alpha=c)
    return _norm(scratch)


def compare(loop, means, counts, regular_k, clip_norm, previous, tolerance):
    """The window's record fields. `means` holds ḡ_i as rows (k × P), `loop` the loop's
    gradient U, `previous` the gradient left from the previous update (or None): the norms of
    the reference R and of U, |U − R| / |R| and |U − P_r| / |R| for each recipe r (None where
    a recipe cannot be predicted), the scale and cosine of U against R, and the names within
    `tolerance`."""
    k = means.shape[0]
    total = float(sum(counts))
    weights = [n / total for n in counts]
    reference = _combination(means, weights)
    summed = _combination(means, [1.0] * k)
    last = means[-1]
    terms = {
        "sum": [(summed, 1.0)],
        "last-only": [(last, 1.0)],
        "double-last": [(summed, 1.0 / regular_k), (last, 1.0 / regular_k)],
        "mean-of-means": [(summed, 1.0 / regular_k)],
        "no-zero": [(reference, 1.0), (previous, 1.0)] if previous is not None else None,
        "clip-each": None,
    }
    if clip_norm is not None:
        terms["clip-each"] = [(g, w * min(1.0, clip_norm / (_norm(g) + CLIP_EPS)))
                              for w, g in zip(weights, means)]
    scratch = torch.empty_like(loop)
    ref_norm, loop_norm = _norm(reference), _norm(loop)
    dot = loop.dot(reference).item()
    scale_ref = ref_norm if ref_norm > 0 else 1.0
    rel = _distance(scratch, loop, [(reference, 1.0)]) / scale_ref
    recipes = {name: None if t is None else _distance(scratch, loop, t) / scale_ref
               for name, t in terms.items()}
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
