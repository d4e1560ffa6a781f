#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Text sequences against the plain PyTorch loop with ignore_index padding.

Usage: sequence_python_test.py ACCUMLAB_CLI [--updates 25] [--keep DIR]

Writes a text file of lines of varying length and a TorchScript character GRU, trains accum,
big-batch and pitfall:mean-of-means with the CLI in float64 on `--data text:FILE`, and trains
the same arms again here as people write them (docs/sequences.md): every micro-batch padded
to its own longest line, targets past a line's end set to -100 and left out by
cross_entropy's ignore_index; accum divides each micro-batch's summed token loss by the
tokens of the whole window, big-batch takes one padded batch and cross_entropy's per-token
mean, and mean-of-means takes each micro-batch's per-token mean divided by K. The train and
validation split and the sample order are rebuilt here from their documented rules. For every
update the window's per-token loss and the norm of the gradient the optimizer is given, and
the final validation loss, must agree to 1e-12 (relative), with SGD and with Adam, and over
two epochs under flush-divide-by-K: every full window exact (the summed token loss ÷ the
window's tokens), and only the window cut short at each epoch end under-scaled, each of its
micro-batches' per-token mean ÷ K. There the gradient check of every full window must be
rounding (1e-12) and that of every short window must show the policy.
"""
import argparse
import os
import random
import sys
import tempfile

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pitfall_python_test import compare, engine, relative, sample_stream, windows  # noqa: E402

M, K = 4, 3
LINES = 150
MAX_LEN = 40
START, END, IGNORED = 2, 3, -100
SPLIT_SALT = 0x5EEDF00D


class CharGru(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(256, 8)
        self.gru = torch.nn.GRU(8, 12, batch_first=True)
        self.head = torch.nn.Linear(12, 256)

    def forward(self, x):
        h, _ = self.gru(self.embed(x))
        return self.head(h)


def make_inputs(folder):
    rng = random.Random(11)
    words = "the a of to and in is it you that water number go people sound find".split()
    lines = [" ".join(rng.choice(words) for _ in range(rng.randint(1, 12))) for _ in range(LINES)]
    text = os.path.join(folder, "lines.txt")
    with open(text, "w") as f:
        f.write("\n".join(lines) + "\n")
    torch.manual_seed(3)
    model = os.path.join(folder, "charlm.pt")
    torch.jit.script(CharGru()).save(model)
    # Rows as docs/sequences.md stores them: start byte, the line (cut to MAX_LEN), end byte.
    rows = [[START] + list(line.encode()[:MAX_LEN]) + [END] for line in lines]
    return text, model, rows


def split(rows, seed, val_fraction=0.1):
    """The train/validation split: a permutation from its own seeded generator."""
    n = len(rows)
    n_val = int(n * val_fraction + 0.5)
    g = torch.Generator().manual_seed(seed ^ SPLIT_SALT)
    perm = torch.randperm(n, generator=g).tolist()
    return [rows[i] for i in perm[n_val:]], [rows[i] for i in perm[:n_val]]


def batch(rows):
    """Inputs and targets of rows padded to their own longest."""
    width = max(len(r) for r in rows)
    x = torch.zeros(len(rows), width - 1, dtype=torch.long)
    y = torch.full((len(rows), width - 1), IGNORED, dtype=torch.long)
    for i, r in enumerate(rows):
        x[i, :len(r) - 1] = torch.tensor(r[:-1])
        y[i, :len(r) - 1] = torch.tensor(r[1:])
    return x, y


def token_loss(model, rows, reduction):
    x, y = batch(rows)
    logits = model(x)
    return torch.nn.functional.cross_entropy(logits.reshape(-1, 256), y.reshape(-1),
                                             ignore_index=IGNORED, reduction=reduction)


def tokens(rows):
    return sum(len(r) - 1 for r in rows)


def python_arm(arm, model_path, train, val, order, samples, opt, policy="stream"):
    model = torch.jit.load(model_path).double()
    params = list(model.parameters())
    if opt["optimizer"] == "sgd":
        optimizer = torch.optim.SGD(params, lr=opt["lr"], momentum=0.9)
    else:
        optimizer = torch.optim.Adam(params, lr=opt["lr"])
    records = []
    for micro, short in windows(order, samples, policy, len(train)):
        micro = [[train[i] for i in mb] for mb in micro]
        window = sum(micro, [])
        # flush-divide-by-K: in a window cut short at an epoch end, each micro-batch's per-token
        # mean ÷ K (big-batch's one micro-batch: ÷ 1); every full window is exact.
        divide = policy == "flush-divide-by-K" and short
        optimizer.zero_grad(set_to_none=False)
        window_tokens = tokens(window)
        loss_sum = 0.0
        if arm == "big-batch":
            loss = token_loss(model, window, "mean")  # per-token mean, padding ignored
            loss.backward()
            loss_sum = loss.item() * window_tokens
        for mb in micro if arm != "big-batch" else []:
            if arm == "accum" and divide:
                mean = token_loss(model, mb, "mean")
                (mean / K).backward()
                loss_sum += mean.item() * tokens(mb)
            elif arm == "accum":
                summed = token_loss(model, mb, "sum")
                (summed / window_tokens).backward()  # tokens counted before the first backward
                loss_sum += summed.item()
            elif arm == "pitfall:mean-of-means":
                mean = token_loss(model, mb, "mean")
                (mean / K).backward()
                loss_sum += mean.item() * tokens(mb)
            else:
                raise ValueError(arm)
        grad_norm = torch.sqrt(sum((p.grad * p.grad).sum() for p in params)).item()
        optimizer.step()
        records.append({"loss": loss_sum / window_tokens, "grad_norm": grad_norm,
                        "lr": opt["lr"]})
    with torch.no_grad():
        records[-1]["val_loss"] = token_loss(model, val, "sum").item() / tokens(val)
    return records


def divide_by_k(args, text, model, train, val):
    """flush-divide-by-K over two epochs of 135 lines (11 windows of 12 and one of 3 each):
    the engine against the loop, and its gradient check at every update."""
    samples = 2 * len(train)
    order = sample_stream(len(train), args.seed, samples)
    arms = ["accum", "big-batch", "pitfall:mean-of-means"]
    opt = {"name": "adam-flush-divide-by-K", "optimizer": "adam", "lr": 0.01}
    ours = engine(args.cli, "text:" + text, model, arms, samples, opt, args.keep_folder,
                  args.seed, ["--max-len", str(MAX_LEN), "--window-policy", "flush-divide-by-K",
                              "--grad-check-every", "1"])
    theirs = {arm: python_arm(arm, model, train, val, order, samples, opt, "flush-divide-by-K")
              for arm in arms}
    worst, failures = compare(opt["name"], arms, ours, theirs)
    for arm in arms:
        if arm in worst:
            print("%-22s %-22s %d updates, largest relative difference %.2g"
                  % (opt["name"], arm, len(theirs[arm]), worst[arm]))
    full, short = [], []
    for row in ours["accum"]:
        if row["grad_equiv"] == "":
            continue
        (full if int(row["window_samples"]) == M * K else short).append(float(row["grad_equiv"]))
    print("%s accum gradient check: %d full windows, largest %.2g; %d short, smallest %.2g"
          % (opt["name"], len(full), max(full or [0]), len(short), min(short or [0])))
    if len(full) != len(ours["accum"]) - 2 or len(short) != 2:
        failures.append("%s: %d full and %d short windows checked of %d updates"
                        % (opt["name"], len(full), len(short), len(ours["accum"])))
    if max(full or [1]) > 1e-12:
        failures.append("%s: a full window's gradient check is %.3g, not rounding"
                        % (opt["name"], max(full)))
    if min(short or [0]) < 1e-3:
        failures.append("%s: a short window's gradient check is %.3g: the policy does not show"
                        % (opt["name"], min(short or [0])))
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cli")
    parser.add_argument("--updates", type=int, default=25)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--keep", help="write the inputs here instead of a temporary folder")
    args = parser.parse_args()
    torch.set_default_dtype(torch.float64)
    torch.set_num_threads(1)
    folder = args.keep or tempfile.mkdtemp(prefix="accumlab-sequences-")
    os.makedirs(folder, exist_ok=True)
    args.keep_folder = folder
    text, model, rows = make_inputs(folder)
    train, val = split(rows, args.seed)
    # The stream crosses an epoch end (135 training lines) and ends on a short window of 5.
    samples = (args.updates - 1) * M * K + 5
    order = sample_stream(len(train), args.seed, samples)
    arms = ["accum", "big-batch", "pitfall:mean-of-means"]
    failures = []
    for opt in ({"name": "sgd", "optimizer": "sgd", "lr": 0.1},
                {"name": "adam", "optimizer": "adam", "lr": 0.01}):
        ours = engine(args.cli, "text:" + text, model, arms, samples, opt, folder, args.seed,
                      ["--max-len", str(MAX_LEN)])
        theirs = {arm: python_arm(arm, model, train, val, order, samples, opt) for arm in arms}
        worst, bad = compare(opt["name"], arms, ours, theirs)
        failures += bad
        for arm in arms:
            if arm in worst:
                print("%-5s %-22s %d updates, largest relative difference %.2g"
                      % (opt["name"], arm, len(theirs[arm]), worst[arm]))
        # The mistake shows: mean-of-means' gradient is not accum's.
        gap = max(relative(float(a["grad_norm"]), float(b["grad_norm"]))
                  for a, b in zip(ours["pitfall:mean-of-means"], ours["accum"]))
        print("%-5s mean-of-means' gradient norm differs from accum's by up to %.2g"
              % (opt["name"], gap))
        if gap < 1e-3:
            failures.append("%s: mean-of-means trained like accum (%.2g)" % (opt["name"], gap))
    failures += divide_by_k(args, text, model, train, val)
    for f in failures[:20]:
        print("FAIL " + f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
