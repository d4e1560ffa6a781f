# SPDX-License-Identifier: GPL-3.0-or-later
"""accumlab.audit on plain PyTorch loops, each written as a person writes it, with its one
mistake (docs/pitfalls.md): every wrong recipe gets its own name as the verdict, the right
loop `exact`, a BatchNorm model `batch-dependent`, a loop scaled by 0.7 `unknown` with its
scale (docs/audit.md)."""
import json
import math

import pytest
import torch

from accumlab import audit

M, K = 8, 4
ROWS, FEATURES, CLASSES = 100, 6, 3  # 100 rows: three windows of 32, then one of 4


def tabular(dtype):
    g = torch.Generator().manual_seed(0)
    return (torch.randn(ROWS, FEATURES, generator=g, dtype=dtype),
            torch.randint(0, CLASSES, (ROWS,), generator=g))


def mlp(dtype, extra=None):
    torch.manual_seed(1)
    layers = [torch.nn.Linear(FEATURES, 16)] + ([extra] if extra is not None else []) + \
        [torch.nn.Tanh(), torch.nn.Linear(16, CLASSES)]
    return torch.nn.Sequential(*layers).to(dtype)


def windows(rows, m=M, k=K):
    starts = list(range(0, rows, m))
    return [[(s, min(s + m, rows)) for s in starts[i:i + k]] for i in range(0, len(starts), k)]


class LikeGradScaler:
    """A GradScaler's interface on the CPU: scale, unscale_, step, update, get_scale."""

    def __init__(self, scale=1024.0):
        self.s, self.unscaled = scale, False

    def scale(self, loss):
        return loss * self.s

    def unscale_(self, optimizer):
        for group in optimizer.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    p.grad.div_(self.s)
        self.unscaled = True

    def step(self, optimizer):
        if not self.unscaled:
            self.unscale_(optimizer)
        optimizer.step()

    def update(self):
        self.unscaled = False

    def get_scale(self):
        return self.s


def train_tabular(recipe, model, optimizer, x, y, out, clip=None, scaler=None, scheduler=None,
                  epochs=2, every=1):
    """The accumulation loop over (x, y), right or with `recipe`'s mistake."""
    criterion = torch.nn.CrossEntropyLoss()
    params = list(model.parameters())
    with audit.watch(model, optimizer, loss=criterion, out=out, scaler=scaler,
                     every=every) as a:
        for _ in range(epochs):
            for window in windows(len(y)):
                n_window = sum(b - s for s, b in window)
                if recipe != "no-zero":
                    optimizer.zero_grad()
                if recipe == "clip-each":
                    summed = [torch.zeros_like(p) for p in params]
                for i, (s, b) in enumerate(window):
                    last = i == len(window) - 1
                    loss = criterion(model(x[s:b]), y[s:b])  # the micro-batch's mean
                    if recipe in ("exact", "no-zero", "schedule-per-micro"):
                        scaled = loss * (b - s) / n_window
                    elif recipe == "sum":
                        scaled = loss
                    elif recipe == "last-only":
                        optimizer.zero_grad()
                        scaled = loss
                    elif recipe in ("mean-of-means", "double-last"):
                        scaled = loss / K
                    elif recipe == "clip-each":
                        optimizer.zero_grad()
                        scaled = loss
                    elif recipe == "unknown":
                        scaled = loss * 0.7 * (b - s) / n_window
                    if scaler is not None:
                        scaled = scaler.scale(scaled)
                    scaled.backward(retain_graph=recipe == "double-last" and last)
                    if recipe == "double-last" and last:
                        scaled.backward()
                    if recipe == "clip-each":
                        torch.nn.utils.clip_grad_norm_(params, clip)
                        for acc, p in zip(summed, params):
                            acc.add_(p.grad, alpha=(b - s) / n_window)
                    if recipe == "schedule-per-micro" and not last:
                        scheduler.step()
                if recipe == "clip-each":
                    for acc, p in zip(summed, params):
                        p.grad = acc
                elif clip is not None:
                    if scaler is not None:
                        scaler.unscale_(optimizer)
                    torch.nn.utils.clip_grad_norm_(params, clip)
                if scaler is not None:
                    scaler.step(optimizer)
                    scaler.update()
                else:
                    optimizer.step()
                if scheduler is not None:
                    scheduler.step()
    return a


RECIPES = ["exact", "sum", "last-only", "double-last", "mean-of-means", "no-zero", "unknown"]


@pytest.mark.parametrize("recipe", RECIPES)
def test_each_recipe_on_an_mlp_with_an_uneven_last_window_gets_its_name(recipe, tmp_path):
    x, y = tabular(torch.float32)
    model = mlp(torch.float32)
    sgd = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    a = train_tabular(recipe, model, sgd, x, y, tmp_path / "audit.jsonl")
    assert a.verdict == recipe, a.sentence
    assert audit.load(tmp_path / "audit.jsonl")["verdict"] == recipe
    if recipe == "exact":
        assert a.result["largest_rel_diff"] <= 1e-6
    if recipe == "unknown":
        assert "matches no known recipe" in a.sentence
        assert a.result["scale"] == pytest.approx(0.7, rel=1e-5)
        assert "0.7×" in a.sentence


@pytest.mark.parametrize("recipe", ["exact", "sum", "mean-of-means"])
def test_adamw_in_float64_is_judged_alike_and_exact_to_1e_12(recipe, tmp_path):
    x, y = tabular(torch.float64)
    model = mlp(torch.float64)
    adamw = torch.optim.AdamW(model.parameters(), lr=0.01, weight_decay=0.1)
    a = train_tabular(recipe, model, adamw, x, y, tmp_path / "audit.jsonl")
    assert a.verdict == recipe, a.sentence
    if recipe == "exact":
        assert a.result["largest_rel_diff"] <= 1e-12


@pytest.mark.parametrize("recipe", ["exact", "clip-each"])
def test_clipping_and_a_grad_scaler_are_taken_out_of_the_gradient(recipe, tmp_path):
    x, y = tabular(torch.float32)
    model = mlp(torch.float32)
    sgd = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    scaler = LikeGradScaler() if recipe == "exact" else None
    a = train_tabular(recipe, model, sgd, x, y, tmp_path / "audit.jsonl", clip=0.3,
                      scaler=scaler)
    assert a.verdict == recipe, a.sentence
    if recipe == "exact":
        assert a.result["largest_rel_diff"] <= 1e-6
        # The clip really clipped: the loop's gradients exceed the clip norm.
        assert max(w["loop_norm"] for w in a.windows if w["audited"]) > 0.3


@pytest.mark.filterwarnings("ignore:Detected call of `lr_scheduler.step()`")
@pytest.mark.parametrize("recipe", ["exact", "schedule-per-micro"])
def test_a_scheduler_stepped_per_micro_batch_is_seen_in_the_learning_rates(recipe, tmp_path):
    x, y = tabular(torch.float32)
    model = mlp(torch.float32)
    sgd = torch.optim.SGD(model.parameters(), lr=0.05)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(sgd, T_max=40)
    a = train_tabular(recipe, model, sgd, x, y, tmp_path / "audit.jsonl", scheduler=schedule)
    assert a.verdict == recipe, a.sentence


def test_equal_windows_cannot_tell_mean_of_means_apart_and_say_so(tmp_path):
    x, y = tabular(torch.float32)
    model = mlp(torch.float32)
    sgd = torch.optim.SGD(model.parameters(), lr=0.05)
    a = train_tabular("mean-of-means", model, sgd, x[:96], y[:96], tmp_path / "a.jsonl")
    assert a.verdict == "exact"
    assert "mean-of-means" in a.result["note"] and "uneven window" in a.result["note"]


@pytest.mark.parametrize("recipe", ["exact", "double-last"])
def test_dropout_needs_no_replay(recipe, tmp_path):
    x, y = tabular(torch.float32)
    model = mlp(torch.float32, torch.nn.Dropout(0.3))
    sgd = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    a = train_tabular(recipe, model, sgd, x, y, tmp_path / "audit.jsonl")
    assert a.verdict == recipe, a.sentence
    assert a.header["stochastic"]


def test_batchnorm_is_batch_dependent_not_a_bug(tmp_path):
    x, y = tabular(torch.float32)
    model = mlp(torch.float32, torch.nn.BatchNorm1d(16))
    sgd = torch.optim.SGD(model.parameters(), lr=0.05)
    a = train_tabular("exact", model, sgd, x[:96], y[:96], tmp_path / "audit.jsonl")
    assert a.verdict == "batch-dependent", a.sentence
    assert a.result["accumulation"] == "exact"
    assert "normalises over its batch" in a.sentence


def test_every_n_audits_fewer_windows_but_every_irregular_one(tmp_path):
    x, y = tabular(torch.float32)
    model = mlp(torch.float32)
    sgd = torch.optim.SGD(model.parameters(), lr=0.05)
    a = train_tabular("mean-of-means", model, sgd, x, y, tmp_path / "audit.jsonl", epochs=3,
                      every=5)
    audited = [w for w in a.windows if w["audited"]]
    assert len(audited) < len(a.windows)
    # Every short window (one micro-batch of 4 rows, at each epoch's end) was compared.
    assert all(w["audited"] for w in a.windows if w["rows"] == [4])
    assert a.verdict == "mean-of-means", a.sentence


# -- a token model that computes its own loss from `labels`, as Hugging Face models do -------

VOCAB, IGNORED = 20, -100


class TinyLm(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(VOCAB, 8)
        self.gru = torch.nn.GRU(8, 12, batch_first=True)
        self.head = torch.nn.Linear(12, VOCAB)

    def forward(self, input_ids, attention_mask=None, labels=None):
        logits = self.head(self.gru(self.embed(input_ids))[0])
        out = {"logits": logits}
        if labels is not None:  # shifted inside the model, padding ignored
            out["loss"] = torch.nn.functional.cross_entropy(
                logits[:, :-1].reshape(-1, VOCAB), labels[:, 1:].reshape(-1),
                ignore_index=IGNORED)
        return out


def sequences(count=36):
    g = torch.Generator().manual_seed(3)
    lengths = torch.randint(3, 13, (count,), generator=g).tolist()
    return [torch.randint(1, VOCAB, (n,), generator=g) for n in lengths]


def padded(rows):
    width = max(len(r) for r in rows)
    ids = torch.zeros(len(rows), width, dtype=torch.long)
    mask = torch.zeros(len(rows), width, dtype=torch.long)
    labels = torch.full((len(rows), width), IGNORED, dtype=torch.long)
    for i, r in enumerate(rows):
        ids[i, :len(r)], mask[i, :len(r)], labels[i, :len(r)] = r, 1, r
    return {"input_ids": ids, "attention_mask": mask, "labels": labels}


@pytest.mark.parametrize("recipe", ["exact", "mean-of-means", "sum"])
def test_a_token_model_with_padding_and_its_own_labels_loss(recipe, tmp_path):
    torch.manual_seed(2)
    model = TinyLm()
    adamw = torch.optim.AdamW(model.parameters(), lr=0.01)
    rows, m, k = sequences(), 4, 3
    with audit.watch(model, adamw, out=tmp_path / "audit.jsonl") as a:
        for start in range(0, len(rows), m * k):
            micro = [padded(rows[s:s + m]) for s in range(start, start + m * k, m)]
            tokens = [int((b["labels"][:, 1:] != IGNORED).sum()) for b in micro]
            adamw.zero_grad()
            for batch, n in zip(micro, tokens):
                loss = model(**batch)["loss"]  # the micro-batch's per-token mean
                if recipe == "exact":
                    (loss * n / sum(tokens)).backward()
                elif recipe == "mean-of-means":
                    (loss / k).backward()
                else:
                    loss.backward()
            adamw.step()
    assert a.verdict == recipe, a.sentence
    assert a.windows[0]["unit"] == "tokens"
    if recipe == "exact":
        assert a.result["largest_rel_diff"] <= 1e-6


def test_assert_exact_fails_with_the_verdict_sentence(tmp_path):
    x, y = tabular(torch.float32)
    model = mlp(torch.float32)
    sgd = torch.optim.SGD(model.parameters(), lr=0.05)
    good = train_tabular("exact", model, sgd, x, y, tmp_path / "good.jsonl")
    audit.assert_exact(good)
    audit.assert_exact(tmp_path / "good.jsonl")
    bad = train_tabular("sum", model, sgd, x, y, None)
    with pytest.raises(AssertionError, match="wrong recipe sum"):
        audit.assert_exact(bad)


def test_the_file_is_versioned_and_bad_files_are_refused(tmp_path):
    x, y = tabular(torch.float32)
    model = mlp(torch.float32)
    sgd = torch.optim.SGD(model.parameters(), lr=0.05)
    path = tmp_path / "audit.jsonl"
    train_tabular("exact", model, sgd, x, y, path)
    lines = path.read_text().splitlines(keepends=True)
    header = json.loads(lines[0])
    assert (header["format"], header["version"]) == ("accumlab-audit", 1)
    assert "end" in json.loads(lines[-1])
    cases = {"truncated": "".join(lines[:3]) + lines[3][:20],
             "no end line": "".join(lines[:-1]),
             "wrong version": lines[0].replace('"version": 1', '"version": 99') +
             "".join(lines[1:]),
             "garbage": "\x00\x01 not json\n"}
    for name, text in cases.items():
        bad = tmp_path / (name.replace(" ", "_") + ".jsonl")
        bad.write_text(text)
        with pytest.raises(ValueError, match=str(bad.name)):
            audit.load(bad)


def test_nothing_stays_patched_after_the_watch(tmp_path):
    x, y = tabular(torch.float32)
    model = mlp(torch.float32)
    sgd = torch.optim.SGD(model.parameters(), lr=0.05)
    clip = torch.nn.utils.clip_grad_norm_
    train_tabular("exact", model, sgd, x, y, None, clip=1.0)
    assert torch.nn.utils.clip_grad_norm_ is clip
    assert "forward" not in vars(model) and "step" not in vars(sgd)
    assert not math.isnan(float(model(x).sum()))
