# SPDX-License-Identifier: GPL-3.0-or-later
"""Audit your own loop: watch an unchanged PyTorch training loop and check, at each update,
its accumulated gradient against the exact big batch of that window (docs/audit.md).

    from accumlab import audit
    with audit.watch(model, optimizer, loss=criterion, out="audit.jsonl") as a:
        ...the loop, unchanged...
    audit.assert_exact(a)

How the reference is built: every micro-batch's own gradient is seen through hooks on the
parameters while its loss is backpropagated, the scale the loop put on that loss through a
hook on the loss tensor, and what the loss averaged over (samples, elements or tokens) from
the criterion's arguments or the model's `labels`. The window as one batch is then the
count-weighted mean of those gradients, with nothing run again; docs/audit.md says why this
and not a replay of the window.
"""
import functools
import json
import math

import torch

from . import _counts, _format
from ._window import compare
from .judge import judge

__all__ = ["watch", "assert_exact", "load", "Audit"]

# Relative differences up to these are rounding (per parameter dtype).
TOLERANCE = {torch.float64: 1e-10, torch.float32: 1e-5, torch.float16: 1e-2,
             torch.bfloat16: 1e-2}


def watch(model, optimizer, loss=None, out=None, every=1, scaler=None, count=None,
          ignore_index=-100, label_shift=1, tolerance=None):
    """Returns a context manager that audits the loop run inside it.

    model: the nn.Module trained. optimizer: its optimizer (its step() ends a window).
    loss: the nn.Module criterion the loop calls; None when the model returns an output with
      a `loss` (attribute or key), computed from `labels` as Hugging Face models do.
    out: the JSON-lines file to write (accumlab-cli audit reads it); None writes nothing.
    every: compare every N-th window, and every irregular one (the first, one with fewer
      micro-batches or other micro-batch sizes than before, the one after it).
    scaler: a torch.cuda.amp.GradScaler or an object like it (scale, unscale_, step, update,
      get_scale): the audit takes its scale out of the gradients.
    count: a function of the loss call's arguments giving what that loss averaged over,
      instead of the rule in docs/audit.md.
    ignore_index, label_shift: how a model-computed loss counts its `labels` tokens.
    tolerance: relative differences up to this are rounding (default by dtype).
    """
    if every < 1:
        raise ValueError("every must be 1 or more, not %r" % (every,))
    return Audit(model, optimizer, loss, out, every, scaler, count, ignore_index, label_shift,
                 tolerance)


def assert_exact(audit, allow_batch_dependent=False):
    """Fails (AssertionError with the verdict's sentence) unless the audited loop gives the
    exact big batch's gradient. `audit` is an Audit or the path of an audit file."""
    result = audit.result if isinstance(audit, Audit) else load(audit)
    ok = ("exact", "batch-dependent") if allow_batch_dependent else ("exact",)
    if result["verdict"] not in ok:
        raise AssertionError(result["sentence"])
    return result


def load(path):
    """The verdict of an audit file (as judge.judge); raises ValueError naming the file and
    what is wrong with it."""
    header, windows = _format.read(path)
    return judge(header, windows)


class _Micro:
    """One loss of the window: its count, rows, the scales put on it (one per backward through
    it, as tensors, read once at the window's end) and its gradients per parameter."""

    __slots__ = ("count", "rows", "scales", "grads", "lr", "loss", "_total")

    def __init__(self, count, rows, lr, loss):
        self.count, self.rows, self.lr, self.loss = count, rows, lr, loss
        self.scales = []
        self.grads = {}
        self._total = None

    def scale(self):
        """The total scale; read once the window's backward passes are done."""
        if self._total is None:
            self._total = float(sum(float(s) for s in self.scales))
        return self._total


class Audit:
    """The watch over one loop: patches and hooks while inside `with`, the records after.

    Threads: every hook runs on the thread that runs the loop's backward, which is the
    thread of the loop (autograd runs CPU hooks on the calling thread)."""

    def __init__(self, model, optimizer, criterion, out, every, scaler, count, ignore_index,
                 label_shift, tolerance):
        self.model, self.optimizer, self.criterion = model, optimizer, criterion
        self.out, self.every, self.scaler, self.count = out, every, scaler, count
        self.ignore_index, self.label_shift = ignore_index, label_shift
        self.params = [p for p in model.parameters() if p.requires_grad]
        dtype = self.params[0].dtype if self.params else torch.float32
        # The comparisons run in float64 for float64 parameters, else in float32.
        self.work = torch.float64 if dtype == torch.float64 else torch.float32
        self.size = sum(p.numel() for p in self.params)
        self.tolerance = tolerance if tolerance is not None else TOLERANCE.get(dtype, 1e-5)
        self.header = self._header(dtype)
        self.windows = []
        self.result = None
        self._undo = []
        self._handles = []
        self._reset_window()
        self._rows = 0
        self._backwards = 0
        self._regular_k = 0
        self._last_shape = None
        self._after_irregular = False
        self._previous = None
        self._means = None  # the k × P matrix of ḡ_i, reused while k stays
        self._clip_norm = None
        self._stepped = False
        self._file = None

    # -- the context manager -------------------------------------------------------------

    def __enter__(self):
        if self.out is not None:
            self._file = open(self.out, "w", encoding="utf-8")
            self._write({"format": _format.FORMAT, "version": _format.VERSION, **self.header})
        self._previous = self._flat_grads()  # what a loop that never zeroes starts from
        for i, p in enumerate(self.params):
            self._handles.append(p.register_hook(self._param_hook(i)))
        self._patch(self.model, "forward", self._model_forward)
        if self.criterion is not None:
            self._patch(self.criterion, "forward", self._criterion_forward)
        self._patch(self.optimizer, "step", self._step)
        self._patch(self.optimizer, "zero_grad", self._zero_grad)
        self._patch(self.model, "zero_grad", self._zero_grad)
        clip = self._clip(torch.nn.utils.clip_grad_norm_)
        self._patch(torch.nn.utils, "clip_grad_norm_", lambda original: clip)
        self._patch(torch.nn.utils.clip_grad, "clip_grad_norm_", lambda original: clip)
        if self.scaler is not None:
            self._patch(self.scaler, "unscale_", self._unscale)
            self._patch(self.scaler, "update", self._update)
        return self

    def __exit__(self, kind, value, trace):
        for h in self._handles:
            h.remove()
        for undo in reversed(self._undo):
            undo()
        self._undo, self._handles = [], []
        self.result = judge(self.header, self.windows)
        if self._file is not None:
            end = {k: self.result[k] for k in ("windows", "audited", "verdict", "sentence")}
            if kind is not None:
                end["error"] = "%s: %s" % (kind.__name__, value)
            self._write({"end": end})
            self._file.close()
            self._file = None
        return False

    @property
    def verdict(self):
        return self.result["verdict"] if self.result else None

    @property
    def sentence(self):
        return self.result["sentence"] if self.result else None

    # -- patches -------------------------------------------------------------------------

    def _patch(self, owner, name, make):
        had = name in vars(owner)
        old = vars(owner)[name] if had else None
        original = getattr(owner, name)
        setattr(owner, name, make(original))

        def undo():
            if had:
                setattr(owner, name, old)
            else:
                delattr(owner, name)
        self._undo.append(undo)

    def _model_forward(self, original):
        @functools.wraps(original)
        def forward(*args, **kwargs):
            self._rows = _rows_of(args, kwargs)
            output = original(*args, **kwargs)
            if self.criterion is None and torch.is_grad_enabled():
                loss = _loss_of(output)
                if loss is not None and loss.requires_grad:
                    if self.count is not None:
                        c = _counts.of_callable(self.count, args, kwargs)
                    else:
                        c = _counts.of_labels(kwargs.get("labels"), self._rows,
                                              self.ignore_index, self.label_shift)
                    self._follow(loss, c)
            return output
        return forward

    def _criterion_forward(self, original):
        @functools.wraps(original)
        def forward(*args, **kwargs):
            loss = original(*args, **kwargs)
            if torch.is_grad_enabled() and torch.is_tensor(loss) and loss.requires_grad \
                    and loss.dim() == 0:
                if self.count is not None:
                    c = _counts.of_callable(self.count, args, kwargs)
                else:
                    c = _counts.of_criterion(self.criterion, args, kwargs, self._rows)
                self._follow(loss, c)
            return loss
        return forward

    def _follow(self, loss, count):
        micro = _Micro(count, self._rows, self._lr(), loss.detach())
        loss.register_hook(lambda g, m=micro: self._loss_hook(m, g))

    def _loss_hook(self, micro, grad):
        # Each backward through this loss starts here, with d(backpropagated)/d(loss).
        if not micro.scales:
            self._micros.append(micro)
        micro.scales.append(grad.detach())
        self._backwards += 1
        self._current = micro

    def _param_hook(self, index):
        def hook(grad):
            m = self._current
            if m is not None:
                had = m.grads.get(index)
                m.grads[index] = grad if had is None else had + grad
        return hook

    def _step(self, original):
        @functools.wraps(original)
        def step(*args, **kwargs):
            self._end_window()
            self._stepped = True
            return original(*args, **kwargs)
        return step

    def _zero_grad(self, original):
        @functools.wraps(original)
        def zero_grad(*args, **kwargs):
            self._zero_grads += 1
            return original(*args, **kwargs)
        return zero_grad

    def _clip(self, original):
        @functools.wraps(original)
        def clip_grad_norm_(parameters, max_norm, *args, **kwargs):
            if torch.is_tensor(parameters):
                parameters = [parameters]
            parameters = list(parameters)
            mine = {id(p) for p in self.params}
            if any(id(p) in mine for p in parameters):
                self._clip_norm = float(max_norm)
                self._clip_snapshot = self._flat_grads()
                self._clip_after = self._backwards
            total = original(parameters, max_norm, *args, **kwargs)
            if self._clip_snapshot is not None:
                self._clip_state = _grad_state(self.params)
            return total
        return clip_grad_norm_

    def _unscale(self, original):
        @functools.wraps(original)
        def unscale_(*args, **kwargs):
            self._unscaled = True
            return original(*args, **kwargs)
        return unscale_

    def _update(self, original):
        @functools.wraps(original)
        def update(*args, **kwargs):
            if not self._stepped:  # the scaler skipped the step (inf or NaN gradients)
                self._reset_window()
            self._stepped = False
            return original(*args, **kwargs)
        return update

    # -- windows -------------------------------------------------------------------------

    def _reset_window(self):
        self._micros = []
        self._current = None
        self._zero_grads = 0
        self._unscaled = False
        self._clip_snapshot = None
        self._clip_state = None
        self._clip_after = None

    def _lr(self):
        groups = self.optimizer.param_groups
        return float(groups[0]["lr"]) if groups and "lr" in groups[0] else None

    def _scale_of_scaler(self):
        return float(self.scaler.get_scale()) if self.scaler is not None else 1.0

    def _flat_grads(self):
        parts = [(p.grad if p.grad is not None else torch.zeros_like(p)).detach()
                 .reshape(-1).to(self.work) for p in self.params]
        scale = 1.0 if self._unscaled else self._scale_of_scaler()
        flat = torch.cat(parts) if parts else torch.zeros(0, dtype=self.work)
        return flat / scale if scale != 1.0 else flat

    def _loop_gradient(self):
        """The gradient the loop hands the optimizer, before a clip_grad_norm_ that came after
        the window's last backward and left the gradients as it made them."""
        now = self._flat_grads()
        if self._clip_snapshot is not None and self._clip_after == self._backwards \
                and self._clip_state == _grad_state(self.params):
            return self._clip_snapshot, now
        return now, now

    def _end_window(self):
        micros = [m for m in self._micros if m.scale()]
        t = len(self.windows) + 1
        shape = tuple(m.rows for m in micros)
        irregular = None
        if t == 1:
            irregular = "first"
        elif len(micros) < self._regular_k:
            irregular = "short"
        elif shape != self._last_shape:
            irregular = "changed"
        elif self._after_irregular:
            irregular = "after-change"
        self._regular_k = max(self._regular_k, len(micros))
        due = irregular is not None or (t - 1) % self.every == 0
        record = {"window": t, "audited": bool(due and micros), "irregular": irregular,
                  "rows": list(shape),
                  "counts": [m.count.n for m in micros],
                  "unit": micros[0].count.unit if micros else None,
                  "scales": [m.scale() / self._scale_of_scaler() for m in micros],
                  "losses": [float(m.loss) for m in micros],
                  "lrs": [m.lr for m in micros], "lr": self._lr(),
                  "clip_norm": self._clip_norm, "zero_grads": self._zero_grads}
        total = sum(m.count.n for m in micros)
        if total > 0:
            # The window's loss as one batch: every counted term's loss over the window's count.
            record["loss"] = sum(float(m.loss) * m.count.divisor for m in micros) / total
        if due and micros:
            loop, after_clip = self._loop_gradient()
            means = self._mean_gradients(micros)
            record.update(compare(loop, means, [m.count.n for m in micros], self._regular_k,
                                  self._clip_norm, self._previous, self.tolerance))
            self._previous = after_clip
        elif self.every == 1 or t % self.every == 0:
            self._previous = self._flat_grads()  # the next window is due: keep what it needs
        else:
            self._previous = None  # the next window, if irregular, goes without no-zero
        self._after_irregular = irregular in ("short", "changed")
        self._last_shape = shape
        self.windows.append(record)
        if self._file is not None:
            self._write(record)
        self._reset_window()

    def _mean_gradients(self, micros):
        """ḡ_i as the rows of one k × P matrix: each micro-batch loss's gradient per counted
        term, its own gradient divided by the scale the loop put on it."""
        device = self.params[0].device
        means = self._means
        if means is None or means.shape[0] != len(micros):
            means = self._means = torch.empty(len(micros), self.size, dtype=self.work,
                                              device=device)
        for row, m in zip(means, micros):
            c = m.count
            factor = c.divisor / (c.n * m.scale()) if c.n else 0.0
            start = 0
            for i, p in enumerate(self.params):
                g = m.grads.get(i)
                part = row[start:start + p.numel()]
                if g is not None:
                    torch.mul(g.detach().reshape(-1), factor, out=part)
                else:
                    part.zero_()
                start += p.numel()
        return means

    # -- the file ------------------------------------------------------------------------

    def _header(self, dtype):
        bn = [name or type(m).__name__ for name, m in self.model.named_modules()
              if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
        stochastic = any(isinstance(m, torch.nn.modules.dropout._DropoutNd)
                         for m in self.model.modules())
        loss = type(self.criterion).__name__ if self.criterion is not None else "model output"
        return {"torch": torch.__version__, "dtype": str(dtype).replace("torch.", ""),
                "model": type(self.model).__name__,
                "parameters": sum(p.numel() for p in self.params),
                "loss": loss,
                "reduction": getattr(self.criterion, "reduction", None),
                "optimizer": type(self.optimizer).__name__,
                "scaler": self.scaler is not None, "every": self.every,
                "tolerance": self.tolerance, "batch_dependent": bn, "stochastic": stochastic}

    def _write(self, obj):
        self._file.write(json.dumps(_clean(obj), allow_nan=False) + "\n")
        self._file.flush()


def _grad_state(params):
    return [(id(p.grad), p.grad._version if p.grad is not None else None) for p in params]


def _rows_of(args, kwargs):
    for v in list(args) + list(kwargs.values()):
        if torch.is_tensor(v) and v.dim() > 0:
            return int(v.shape[0])
    return 0


def _loss_of(output):
    loss = getattr(output, "loss", None)
    if loss is None and isinstance(output, dict):
        loss = output.get("loss")
    return loss if torch.is_tensor(loss) and loss.dim() == 0 else None


def _clean(obj):
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: _clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_clean(v) for v in obj]
    return obj
