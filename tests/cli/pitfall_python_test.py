#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The pitfall arms against plain PyTorch loops that make the same mistakes.

Usage: pitfall_python_test.py ACCUMLAB_CLI [--updates 20] [--keep DIR]

Writes a small IDX dataset (train and t10k, so no split) and a TorchScript MLP, trains every
arm with the CLI in float64, and trains the same arms again here in Python, each as the loop a
person writes: the accumulation loop with its one mistake (docs/pitfalls.md). The engine's
sample order is rebuilt here from its documented rule (a Fisher-Yates shuffle per epoch over
mt19937_64, written out below), not read from the engine. For every arm and every update the
window's loss, the norm of the gradient the optimizer is given, the LR and the final validation
loss must agree to 1e-12 (relative), with SGD (momentum 0.9), with Adam, with clipping and a
cosine schedule, and over three epochs of windows cut at each epoch end (flush-exact,
flush-divide-by-K and drop) with a warm-up, so that short and dropped windows fall in the
middle of a run.
"""
import argparse
import csv
import math
import os
import struct
import subprocess
import sys
import tempfile

import torch

TOLERANCE = 1e-12
M, K = 4, 3  # micro-batch and accumulation count
# 103 = 8 windows of 12 and one of 4 + 3 samples: under every policy but stream each epoch
# ends in a window whose last micro-batch is short.
TRAIN, VAL, FEATURES, CLASSES = 103, 16, 16, 3


class MT19937_64:
    """The 64-bit Mersenne Twister (std::mt19937_64), from its published definition."""

    def __init__(self, seed):
        mask = (1 << 64) - 1
        self.mt = [seed & mask]
        for i in range(1, 312):
            prev = self.mt[-1]
            self.mt.append((6364136223846793005 * (prev ^ (prev >> 62)) + i) & mask)
        self.index = 312

    def __call__(self):
        mt = self.mt
        if self.index >= 312:
            for i in range(312):
                x = (mt[i] & 0xFFFFFFFF80000000) | (mt[(i + 1) % 312] & 0x7FFFFFFF)
                xa = x >> 1
                if x & 1:
                    xa ^= 0xB5026F5AA96619E9
                mt[i] = mt[(i + 156) % 312] ^ xa
            self.index = 0
        y = mt[self.index]
        self.index += 1
        y ^= (y >> 29) & 0x5555555555555555
        y ^= (y << 17) & 0x71D67FFFEDA60000
        y ^= (y << 37) & 0xFFF7EEE000000000
        y ^= y >> 43
        return y & ((1 << 64) - 1)


def epoch_order(size, seed, epoch):
    """The training order of one epoch: docs/accumulation.md's sample stream."""
    rng = MT19937_64((seed + 0x2545F4914F6CDD1D * (epoch + 1)) & ((1 << 64) - 1))
    order = list(range(size))
    for i in range(size - 1, 0, -1):
        j = rng() % (i + 1)
        order[i], order[j] = order[j], order[i]
    return order


def sample_stream(size, seed, count):
    rows, epoch = [], 0
    while len(rows) < count:
        rows += epoch_order(size, seed, epoch)
        epoch += 1
    return rows[:count]


def lr_factor(opt, position, budget):
    """The schedule's factor after `position` samples (docs/accumulation.md): cosine over the
    budget, times a linear warm-up (position + 1) / warm-up while position < warm-up."""
    factor = 1.0
    if opt.get("cosine"):
        factor = 0.5 * (1 + math.cos(math.pi * min(1.0, position / budget)))
    warmup = opt.get("warmup", 0)
    if warmup and position < warmup:
        factor *= (position + 1) / warmup
    return factor


def write_idx(path, tensor):
    with open(path, "wb") as f:
        f.write(bytes([0, 0, 8, tensor.dim()]))
        f.write(struct.pack(">" + "I" * tensor.dim(), *tensor.shape))
        f.write(tensor.numpy().tobytes())


class Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(FEATURES, 8)
        self.b = torch.nn.Linear(8, CLASSES)

    def forward(self, x):
        return self.b(torch.tanh(self.a(x.flatten(1))))


def make_inputs(folder):
    g = torch.Generator().manual_seed(7)
    x = torch.randint(0, 256, (TRAIN + VAL, 4, 4), generator=g, dtype=torch.uint8)
    y = torch.randint(0, CLASSES, (TRAIN + VAL,), generator=g, dtype=torch.uint8)
    data = os.path.join(folder, "data")
    os.makedirs(data)
    write_idx(os.path.join(data, "train-images-idx3-ubyte"), x[:TRAIN])
    write_idx(os.path.join(data, "train-labels-idx1-ubyte"), y[:TRAIN])
    write_idx(os.path.join(data, "t10k-images-idx3-ubyte"), x[TRAIN:])
    write_idx(os.path.join(data, "t10k-labels-idx1-ubyte"), y[TRAIN:])
    torch.manual_seed(3)
    model = os.path.join(folder, "model.pt")
    torch.jit.script(Mlp()).save(model)
    # IDX pixels are bytes scaled by 1/255 (docs/data-and-models.md).
    scale = 1.0 / 255.0
    return data, model, (x[:TRAIN].double() * scale, y[:TRAIN].long()), \
        (x[TRAIN:].double() * scale, y[TRAIN:].long())


def windows(rows, samples, policy, size=TRAIN):
    """The windows of a run as (micro-batches, short) pairs; a dropped window is (None, count).
    Windows of m·K samples; under stream they run across epoch ends and only the run's last
    may be short; under the other policies each epoch's last window ends at the epoch end."""
    out, start = [], 0
    while start < samples:
        take = min(M * K, samples - start)
        if policy != "stream":
            take = min(take, size - start % size)
        window = rows[start:start + take]
        start += take
        short = take < M * K
        if short and policy == "drop":
            out.append((None, take))
        else:
            out.append(([window[i:i + M] for i in range(0, len(window), M)], short))
    return out


def python_arm(arm, model_path, train, val, rows, samples, opt):
    """Trains one arm the way its loop is written in PyTorch; returns per-update records."""
    model = torch.jit.load(model_path).double()
    params = list(model.parameters())
    if opt["optimizer"] == "sgd":
        optimizer = torch.optim.SGD(params, lr=opt["lr"], momentum=0.9)
    else:
        optimizer = torch.optim.Adam(params, lr=opt["lr"])
    # A scheduler in update units: factor(position) with position in samples, as the engine's.
    lr_at = lambda s: opt["lr"] * lr_factor(opt, s, samples)  # noqa: E731
    policy = opt.get("policy", "stream")
    clip = opt.get("clip")
    x, y = train
    records, seen = [], 0
    ce = torch.nn.functional.cross_entropy
    scheduler_steps = 0  # where the scheduler stands, in samples

    def set_lr():
        for group in optimizer.param_groups:
            group["lr"] = lr_at(scheduler_steps)

    set_lr()
    big = arm == "big-batch"
    # The other reading of pitfall:no-zero with clipping, which the engine must not follow:
    # clipping a copy, so that the unclipped sum is carried on.
    carry_unclipped = arm == "pitfall:no-zero/clip-a-copy"
    if carry_unclipped:
        arm = "pitfall:no-zero"
    for window, short in windows(rows, samples, policy):
        if window is None:  # dropped: no micro-batch trained, no scheduler.step() called
            seen += short
            if arm != "pitfall:schedule-per-micro":
                scheduler_steps = seen  # the schedule runs on samples seen, dropped ones too
                set_lr()
            continue
        if big:
            window = [sum(window, [])]
        n = sum(len(mb) for mb in window)
        k = len(window)
        # flush-divide-by-K: a short window's micro-batches each give their mean ÷ K (the arm's
        # K: 1 for big-batch); every full window is exact.
        divide = policy == "flush-divide-by-K" and short
        if arm != "pitfall:no-zero":
            optimizer.zero_grad(set_to_none=False)
        loss_sum = 0.0
        clipped = [torch.zeros_like(p) for p in params]
        for i, mb in enumerate(window):
            idx = torch.tensor(mb)
            loss = ce(model(x[idx]), y[idx])  # the micro-batch's mean loss
            loss_sum += loss.item() * len(mb)
            last = i == k - 1
            if arm in ("accum", "big-batch", "pitfall:no-zero", "pitfall:schedule-per-micro"):
                if divide:
                    (loss / (1 if big else K)).backward()
                else:
                    (loss * len(mb) / n).backward()  # the right recipe: each sample counts 1/N
            elif arm == "pitfall:sum":
                loss.backward()
            elif arm == "pitfall:last-only":
                optimizer.zero_grad(set_to_none=False)  # zeroed inside the loop
                loss.backward()
            elif arm == "pitfall:double-last":
                (loss / K).backward(retain_graph=last)
                if last:
                    (loss / K).backward()
            elif arm == "pitfall:mean-of-means":
                (loss / K).backward()  # ÷ the configured K, also in a short window
            elif arm == "pitfall:clip-each":
                grads = torch.autograd.grad(loss, params)
                norm = torch.sqrt(sum((g * g).sum() for g in grads))
                factor = min(1.0, clip / (norm.item() + 1e-6))
                for c, g in zip(clipped, grads):
                    c.add_(g * factor * len(mb) / n)
            else:
                raise ValueError(arm)
            if arm == "pitfall:schedule-per-micro" and not last:
                # scheduler.step() after every micro-batch, whatever its size: one update on.
                scheduler_steps += M * K
                set_lr()
        if arm == "pitfall:clip-each":
            for p, c in zip(params, clipped):
                p.grad = c
        grad_norm = torch.sqrt(sum((p.grad * p.grad).sum() for p in params)).item()
        lr = optimizer.param_groups[0]["lr"]
        unclipped = [p.grad.clone() for p in params] if carry_unclipped else None
        if clip:
            # In place: pitfall:no-zero carries the clipped gradient into the next window.
            torch.nn.utils.clip_grad_norm_(params, clip)
        optimizer.step()
        if unclipped:
            for p, g in zip(params, unclipped):
                p.grad.copy_(g)
        seen += n
        # A scheduler in windows of m·K samples: stepped once per update, or after the
        # window's last micro-batch too, following the optimizer's step.
        scheduler_steps = scheduler_steps + M * K if arm == "pitfall:schedule-per-micro" else seen
        set_lr()
        records.append({"loss": loss_sum / n, "grad_norm": grad_norm, "lr": lr})
    with torch.no_grad():
        records[-1]["val_loss"] = ce(model(val[0]), val[1]).item()
    return records


def engine(cli, data, model, arms, samples, opt, folder, seed, extra=()):
    """Trains `arms` on data SPEC `data` with the CLI in float64 and returns each arm's
    per-update rows of its CSV export; `extra` are more options for `run`."""
    db = os.path.join(folder, "runs-%s-%d.db" % (opt["name"], len(os.listdir(folder))))
    cmd = [cli, "run", "--data", data, "--model", "torchscript:" + model, *extra,
           "--dtype", "float64", "--arms", ",".join(arms), "-m", str(M), "-k", str(K),
           "--samples", str(samples), "--seed", str(seed), "--optimizer", opt["optimizer"],
           "--lr", str(opt["lr"]), "--eval-every", str(10 * samples), "--threads", "1",
           "--no-noise-stats", "--db", db, "-q"]
    if opt["optimizer"] == "sgd":
        cmd += ["--momentum", "0.9"]
    if opt.get("clip"):
        cmd += ["--clip-norm", str(opt["clip"])]
    if opt.get("cosine"):
        cmd += ["--lr-schedule", "cosine"]
    if opt.get("warmup"):
        cmd += ["--warmup-samples", str(opt["warmup"])]
    if opt.get("policy"):
        cmd += ["--window-policy", opt["policy"]]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit("accumlab-cli run failed: " + done.stderr.strip())
    exported = os.path.join(folder, "export.csv")
    ids = [str(i + 1) for i in range(len(arms))]
    subprocess.run([cli, "export", *ids, "--db", db, "--format", "csv", "-o", exported],
                   check=True, capture_output=True)
    out = {arm: [] for arm in arms}
    with open(exported) as f:
        for row in csv.DictReader(f):
            out[row["arm"]].append(row)
    return out


def relative(a, b):
    return abs(a - b) / max(abs(b), 1e-300)


def compare(name, arms, engine_rows, python_rows):
    worst, failures = {}, []
    for arm in arms:
        ours, theirs = engine_rows[arm], python_rows[arm]
        if len(ours) != len(theirs):
            failures.append("%s %s: the engine made %d updates, Python %d"
                            % (name, arm, len(ours), len(theirs)))
            continue
        w = 0.0
        for t, (e, p) in enumerate(zip(ours, theirs), start=1):
            for field in ("loss", "grad_norm", "lr"):
                d = relative(float(e[field]), p[field])
                w = max(w, d)
                if d > TOLERANCE:
                    failures.append("%s %s update %d: %s %.17g (engine) vs %.17g (Python), "
                                    "relative difference %.3g"
                                    % (name, arm, t, field, float(e[field]), p[field], d))
        d = relative(float(ours[-1]["val_loss"]), theirs[-1]["val_loss"])
        w = max(w, d)
        if d > TOLERANCE:
            failures.append("%s %s: final validation loss %.17g (engine) vs %.17g (Python)"
                            % (name, arm, float(ours[-1]["val_loss"]), theirs[-1]["val_loss"]))
        worst[arm] = w
    return worst, failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cli")
    parser.add_argument("--updates", type=int, default=20)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--keep", help="write the inputs here instead of a temporary folder")
    args = parser.parse_args()
    torch.set_default_dtype(torch.float64)
    torch.set_num_threads(1)
    # The last window holds 5 samples, micro-batches of 4 and 1: an uneven window, where
    # mean-of-means is wrong; every earlier one is full.
    samples = (args.updates - 1) * M * K + 5
    plain = ["accum", "big-batch", "pitfall:sum", "pitfall:last-only", "pitfall:double-last",
             "pitfall:mean-of-means", "pitfall:no-zero"]
    # Three epochs, each ending in a window of 4 + 3 samples (dropped under drop), with a
    # warm-up longer than the run: schedule-per-micro's LR position shows at every update.
    epochs = {"samples": 3 * TRAIN, "warmup": 2000}
    runs = [({"name": "sgd", "optimizer": "sgd", "lr": 0.05}, plain),
            ({"name": "adam", "optimizer": "adam", "lr": 0.01}, plain),
            ({"name": "sgd-clip-cosine", "optimizer": "sgd", "lr": 0.05, "clip": 0.5,
              "cosine": True},
             ["accum", "big-batch", "pitfall:clip-each", "pitfall:schedule-per-micro",
              "pitfall:no-zero"]),
            (dict(epochs, name="sgd-warmup-flush-exact", optimizer="sgd", lr=0.05,
                  policy="flush-exact"),
             ["accum", "big-batch", "pitfall:mean-of-means", "pitfall:schedule-per-micro"]),
            (dict(epochs, name="adam-warmup-drop", optimizer="adam", lr=0.01, policy="drop"),
             ["accum", "big-batch", "pitfall:schedule-per-micro", "pitfall:no-zero"]),
            (dict(epochs, name="sgd-clip-flush-divide-by-K", optimizer="sgd", lr=0.05, clip=0.5,
                  policy="flush-divide-by-K"),
             ["accum", "big-batch", "pitfall:no-zero", "pitfall:schedule-per-micro"])]
    folder = args.keep or tempfile.mkdtemp(prefix="accumlab-pitfalls-")
    os.makedirs(folder, exist_ok=True)
    data, model, train, val = make_inputs(folder)
    failures = []
    for opt, arms in runs:
        count = opt.get("samples", samples)
        rows = sample_stream(TRAIN, args.seed, count)
        ours = engine(args.cli, "idx:" + data, model, arms, count, opt, folder, args.seed)
        theirs = {arm: python_arm(arm, model, train, val, rows, count, opt) for arm in arms}
        worst, bad = compare(opt["name"], arms, ours, theirs)
        failures += bad
        if opt.get("clip") and "pitfall:no-zero" in arms:
            # The engine carries the clipped gradient (docs/pitfalls.md); carrying the
            # unclipped one is another run, which the comparison must be able to tell apart.
            other = python_arm("pitfall:no-zero/clip-a-copy", model, train, val, rows, count, opt)
            _, apart = compare(opt["name"], ["pitfall:no-zero"], ours,
                               {"pitfall:no-zero": other})
            if not apart:
                failures.append("%s pitfall:no-zero: clipping a copy trained the same run"
                                % opt["name"])
        for arm in arms:
            if arm in worst:
                print("%-26s %-28s %d updates, largest relative difference %.2g"
                      % (opt["name"], arm, len(theirs[arm]), worst[arm]))
    for f in failures[:20]:
        print("FAIL " + f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
