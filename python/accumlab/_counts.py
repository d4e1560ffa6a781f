# SPDX-License-Identifier: GPL-3.0-or-later
"""What one loss averaged over: its count and divisor (docs/audit.md, "What is compared").

A mean loss of a micro-batch is (sum of its terms) / d; the window as one batch divides the
sum of every term by the window's D. So the exact big batch's gradient is Σ (d_i / D) g_i,
with g_i the gradient of micro-batch i's own loss. For a mean, d is the count (samples,
elements or non-ignored tokens, or the summed class weights); for a sum, d = 1.
"""
import torch

# The criteria whose mean divides by the (weighted) number of non-ignored class targets.
_CLASS_TARGET = (torch.nn.CrossEntropyLoss, torch.nn.NLLLoss)


class Count:
    """The count n of one loss (what it averaged over), its divisor d and the unit of n."""

    __slots__ = ("n", "divisor", "unit")

    def __init__(self, n, divisor, unit):
        self.n = float(n)
        self.divisor = float(divisor)
        self.unit = unit


def _number(x):
    return float(x.sum().item()) if torch.is_tensor(x) else float(x)


def of_criterion(criterion, args, kwargs, rows):
    """The count of one call of an nn.Module criterion: its inputs, targets, reduction."""
    inp = args[0] if args else kwargs.get("input")
    target = args[1] if len(args) > 1 else kwargs.get("target")
    reduction = getattr(criterion, "reduction", "mean")
    if isinstance(criterion, _CLASS_TARGET) and torch.is_tensor(target) \
            and not target.is_floating_point():
        keep = target != getattr(criterion, "ignore_index", -100)
        weight = getattr(criterion, "weight", None)
        n = _number(weight[target[keep]]) if weight is not None else _number(keep)
        unit = "samples" if target.dim() == 1 and n == rows else "tokens"
    elif isinstance(criterion, _CLASS_TARGET) and torch.is_tensor(inp):
        # Class probabilities as targets: the mean is over every position but the class one.
        n = inp.numel() // inp.shape[1] if inp.dim() > 1 else 1
        unit = "samples" if n == rows else "elements"
    elif isinstance(criterion, torch.nn.KLDivLoss) and reduction == "batchmean":
        return Count(inp.shape[0], inp.shape[0], "samples")
    else:
        n = inp.numel() if torch.is_tensor(inp) else 1
        unit = "samples" if n == rows else "elements"
    return Count(n, 1.0 if reduction == "sum" else n, unit)


def of_labels(labels, rows, ignore_index, label_shift):
    """The count of a loss a model computed itself from `labels` (Hugging Face style): the
    labels that are not `ignore_index`, after dropping the first `label_shift` positions of
    each row of token labels (causal language models predict position t + 1 from t)."""
    if not torch.is_tensor(labels):
        return Count(rows, rows, "samples")
    if labels.dim() >= 2 and label_shift:
        labels = labels[..., label_shift:]
    if labels.is_floating_point():
        return Count(labels.shape[0], labels.shape[0], "samples")
    n = _number(labels != ignore_index)
    unit = "samples" if labels.dim() == 1 else "tokens"
    return Count(n, n, unit)


def of_callable(count, args, kwargs):
    """A count given by the user's own function of the loss call's arguments."""
    n = _number(count(*args, **kwargs))
    return Count(n, n, "samples")
