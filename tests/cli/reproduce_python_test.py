#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A run rebuilt from the manual alone, bit for bit.

Usage: reproduce_python_test.py ACCUMLAB_CLI

Rebuilds in plain PyTorch, from the rules written in docs/data-and-models.md ("Reproducing a
run"), docs/accumulation.md ("A window, step by step") and docs/sequences.md ("How a text file
is read"), and compares with the engine's own numbers, which must be *equal*, not close:

- every built-in model's initial weights, float32 and float64 (the weights digest of a run at
  LR 0, FNV-1a over the parameters' bytes);
- the synthetic datasets, the split, CSV standardisation and the evaluation (the validation
  loss at the initial weights);
- a text file with a byte-order mark, CR LF, blank lines, tabs and a lone CR: its sequences,
  split, dataset line and validation loss;
- whole runs of the three arms (SGD with every 8th K = 1 window trained in halves, across an
  epoch end; Adam with clipping, cosine schedule, warm-up and flush-exact; a TorchScript model
  with dropout, from the file's own weights, reseeded per window): the final weights.
"""
import json
import math
import os
import platform
import subprocess
import sys
import tempfile

# Equal bits need the same BLAS kernels on both sides. Where OpenBLAS would fall back to its
# generic ones, accumlab-cli picks better ones unless OPENBLAS_CORETYPE is set
# (app/blas/blas_core.cpp; docs/accumulation.md, "Rounding"): set here, before torch loads
# OpenBLAS, it holds for this script and for the engine it starts.
if platform.machine() == "x86_64":
    os.environ.setdefault("OPENBLAS_CORETYPE", "Prescott")

import torch  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pitfall_python_test import MT19937_64  # noqa: E402

nn = torch.nn
F = nn.functional
CLI = sys.argv[1] if len(sys.argv) > 1 else "build/app/cli/accumlab-cli"
failures = []


def check(name, ours, theirs):
    ok = ours == theirs
    print(("ok   " if ok else "FAIL ") + name + ": " + repr(ours) + (" == " if ok else " != ") +
          repr(theirs))
    if not ok:
        failures.append(name)


def engine(args):
    """The accum arm's (or every arm's) summary of a run, from --json."""
    done = subprocess.run([CLI, "run", "--no-store", "--json", "-q", "--threads", "1", *args],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit("accumlab-cli run failed: " + done.stderr.strip())
    return json.loads(done.stdout)


def digest(params):
    h = 0xcbf29ce484222325
    for p in params:
        for b in p.detach().contiguous().numpy().tobytes():
            h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h


# --- docs/data-and-models.md, "Reproducing a run" ------------------------------------------

def split(x, y, seed, f=0.1):
    n = len(x)
    n_val = int(n * f + 0.5)
    if f > 0 and n_val == 0:
        n_val = 1
    perm = torch.randperm(n, generator=torch.Generator().manual_seed(seed ^ 0x5EEDF00D)).tolist()
    pick = (lambda v, rows: [v[i] for i in rows]) if isinstance(x, list) else \
        (lambda v, rows: v[torch.tensor(rows, dtype=torch.long)])
    return pick(x, perm[n_val:]), pick(y, perm[n_val:]), pick(x, perm[:n_val]), pick(y, perm[:n_val])


def stream(size, seed, count):
    rows, epoch = [], 0
    while len(rows) < count:
        rng = MT19937_64((seed + 0x2545F4914F6CDD1D * (epoch + 1)) % 2**64)
        order = list(range(size))
        for i in range(size - 1, 0, -1):
            j = rng() % (i + 1)
            order[i], order[j] = order[j], order[i]
        rows += order
        epoch += 1
    return rows[:count]


def generator(seed, k):
    return torch.Generator().manual_seed((seed * 0x9E3779B97F4A7C15 + k) % 2**64)


def spirals(n, seed):
    g = generator(seed, 1)
    label = torch.arange(n) % 3
    t = torch.rand(n, generator=g, dtype=torch.float64)
    r = t * 1.0 + 0.05
    angle = t * 3.0 * math.pi + label.double() * (2.0 * math.pi / 3)
    angle = angle + torch.randn(n, generator=g, dtype=torch.float64) * 0.15
    return torch.stack([r * torch.cos(angle), r * torch.sin(angle)], 1).float(), label


def blobs(n, d, seed):
    g = generator(seed, 2)
    c = torch.randn(10, d, generator=g) * (1.5 / math.sqrt(d / 2.0 + 1.0))
    label = torch.randint(10, (n,), generator=g)
    return c[label] + torch.randn(n, d, generator=g) * (1.0 / math.sqrt(d / 2.0 + 1.0)), label


def linreg(n, d, seed):
    g = generator(seed, 3)
    w = torch.randn(d, generator=g, dtype=torch.float64)
    x = torch.randn(n, d, generator=g, dtype=torch.float64)
    y = x.matmul(w) + 0.5 + torch.randn(n, generator=g, dtype=torch.float64) * 0.5
    return x, y.unsqueeze(1)


class Mlp(nn.Module):
    def __init__(self, inputs, hidden, outputs):
        super().__init__()
        self.layers = nn.ModuleList()
        for h in hidden + [outputs]:
            self.layers.append(nn.Linear(inputs, h))
            inputs = h

    def forward(self, x):
        x = x.flatten(1)
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i + 1 < len(self.layers):
                x = torch.relu(x)
        return x


class Cnn(nn.Module):
    def __init__(self, c, h, w, outputs, bn):
        super().__init__()
        self.conv1 = nn.Conv2d(c, 6, 5, padding=2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        if bn:
            self.bn1, self.bn2 = nn.BatchNorm2d(6), nn.BatchNorm2d(16)
        side = lambda s: ((s // 2) - 4) // 2  # noqa: E731
        self.fc1 = nn.Linear(16 * side(h) * side(w), 120)
        self.fc2 = nn.Linear(120, 84)
        self.head = nn.Linear(84, outputs)


class CharGru(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.embed = nn.Embedding(256, 32)
        self.gru = nn.GRU(32, hidden, batch_first=True)
        self.head = nn.Linear(hidden, 256)

    def forward(self, x):
        return self.head(self.gru(self.embed(x))[0])


class CharTransformer(nn.Module):
    def __init__(self, positions):
        super().__init__()
        self.embed = nn.Embedding(256, 64)
        self.position = nn.Embedding(positions, 64)
        self.blocks = nn.ModuleList()
        for _ in range(2):
            b = nn.Module()
            b.norm1, b.qkv, b.proj = nn.LayerNorm(64), nn.Linear(64, 192), nn.Linear(64, 64)
            b.norm2, b.up, b.down = nn.LayerNorm(64), nn.Linear(64, 256), nn.Linear(256, 64)
            self.blocks.append(b)
        self.norm_out, self.head = nn.LayerNorm(64), nn.Linear(64, 256)


def built(seed, make, dtype=torch.float32):
    torch.manual_seed(seed)
    return make().to(dtype)


def evaluate(model, vx, vy, loss, weight, batch=1024):
    total = torch.zeros((), dtype=torch.float64)
    with torch.no_grad():
        for b in range(0, len(vx), batch):
            total += loss(model, vx[b:b + batch], vy[b:b + batch]).double()
    return total.item() / weight


# --- docs/sequences.md, "How a text file is read" ------------------------------------------

def text_sequences(data, max_len=256):
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    lines = [ln[:-1] if ln.endswith(b"\r") else ln for ln in lines]
    return [ln[:max_len] for ln in lines if ln.strip(b" \t") != b""]


def text_batch(rows):
    """Rows (0x02, bytes, 0x03) padded to their own longest: inputs and targets."""
    width = max(len(r) for r in rows)
    x = torch.zeros(len(rows), width - 1, dtype=torch.long)
    y = torch.full((len(rows), width - 1), -100, dtype=torch.long)
    for i, r in enumerate(rows):
        x[i, :len(r) - 1] = torch.tensor(r[:-1])
        y[i, :len(r) - 1] = torch.tensor(r[1:])
    return x, y


def text_loss(model, rows, _):
    x, y = text_batch(rows)
    return F.cross_entropy(model(x).reshape(-1, 256), y.reshape(-1), ignore_index=-100,
                           reduction="sum")


def sample_loss(model, x, y):
    return F.cross_entropy(model(x), y, reduction="sum")


# --- docs/accumulation.md, "A window, step by step" ---------------------------------------

def mix(x):
    """SplitMix64's finaliser: the seed of a random layer's window."""
    mask = (1 << 64) - 1
    x = (x + 0x9E3779B97F4A7C15) & mask
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & mask
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & mask
    return x ^ (x >> 31)


class DropoutMlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(2, 32)
        self.b = nn.Linear(32, 3)

    def forward(self, x):
        return self.b(F.dropout(torch.relu(self.a(x.flatten(1))), 0.3, self.training))


def train_arm(arm, tx, ty, seed, m, k, samples, opt):
    """One arm's final weights digest: the window rules, SGD or Adam, schedule and clipping;
    opt["model"] is a TorchScript file (its own weights) or absent (the default mlp)."""
    k = k if arm == "accum" else 1
    m = m * opt["k"] if arm == "big-batch" else m
    if opt.get("model"):
        model = torch.jit.load(opt["model"])
        model.train()
    else:
        model = built(seed, lambda: Mlp(2, [128, 128], 3))
    params = list(model.parameters())
    if opt["optimizer"] == "sgd":
        optimizer = torch.optim.SGD(params, lr=opt["lr"], momentum=0.9)
    else:
        optimizer = torch.optim.Adam(params, lr=opt["lr"])
    rows = stream(len(tx), seed, samples)
    n, consumed, since = len(tx), 0, 0
    while consumed < samples:
        take = min(m * k, samples - consumed)
        if opt.get("policy") == "flush-exact":
            take = min(take, n - consumed % n)
        s = consumed
        f = 0.5 * (1 + math.cos(math.pi * min(1.0, s / samples))) if opt.get("cosine") else 1.0
        if s < opt.get("warmup", 0):
            f *= (s + 1.0) / opt["warmup"]
        base = opt["lr"] * (opt["k"] if opt.get("linear") and arm != "no-accum" else 1)
        for group in optimizer.param_groups:
            group["lr"] = base * f
        window = rows[consumed:consumed + take]
        consumed += take
        batches = [window[i:i + m] for i in range(0, len(window), m)]
        if len(batches) == 1:  # a K = 1 window: every 8th in halves
            since += 1
            if since >= 8:
                since = 0
                half = len(window) // 2
                batches = [window[:half], window[half:]] if half > 0 else batches
        if opt.get("model"):  # random layers: the window's own seed
            torch.manual_seed(mix(seed ^ mix(s)))
        for p in params:
            p.grad = None
        scale = 1.0 / len(window)
        for mb in batches:
            idx = torch.tensor(mb)
            (F.cross_entropy(model(tx[idx]), ty[idx], reduction="sum") * scale).backward()
        if opt.get("clip"):
            torch.nn.utils.clip_grad_norm_(params, opt["clip"])
        optimizer.step()
    return digest(params)


def main():
    torch.set_flush_denormal(True)
    torch.set_num_threads(1)
    folder = tempfile.mkdtemp()
    lines = [b"a" * (i % 37 + 1) for i in range(60)]
    with open(os.path.join(folder, "lines.txt"), "wb") as f:
        f.write(b"\n".join(lines) + b"\n")
    lines_spec = "text:" + os.path.join(folder, "lines.txt")

    # Initial weights of every built-in model.
    models = [
        (["--data", "spirals", "--model", "mlp"], lambda: Mlp(2, [128, 128], 3)),
        (["--data", "spirals", "--model", "logreg"], lambda: Mlp(2, [], 3)),
        (["--data", "spirals", "--model", "mlp:7,5,3", "--seed", "7"], lambda: Mlp(2, [7, 5, 3], 3)),
        (["--data", "blobs:1x28x28", "--model", "cnn"], lambda: Cnn(1, 28, 28, 10, False)),
        (["--data", "blobs:3x17x13", "--model", "cnn_bn"], lambda: Cnn(3, 17, 13, 10, True)),
        (["--data", lines_spec, "--model", "charlm"], lambda: CharGru(64)),
        (["--data", lines_spec, "--model", "charlm:20", "--seed", "5000000000"], lambda: CharGru(20)),
        (["--data", lines_spec, "--model", "charlm-transformer"],
         lambda: CharTransformer(max(map(len, lines)) + 2)),
    ]
    for dtype, torch_dtype in (("float32", torch.float32), ("float64", torch.float64)):
        for args, make in models:
            seed = int(args[args.index("--seed") + 1]) if "--seed" in args else 42
            ours = digest(built(seed, make, torch_dtype).parameters())
            theirs = engine(args + ["--lr", "0", "--samples", "4", "-m", "2", "-k", "2",
                                    "--arms", "accum", "--synthetic-samples", "200",
                                    "--dtype", dtype])["arms"]["accum"]["weights_digest"]
            check("initial weights of %s, %s" % (args[3], dtype), ours, theirs)

    # Synthetic data, split and evaluation: the validation loss at the initial weights.
    def val_loss_at_start(args):
        return engine(args + ["--model", "logreg", "--lr", "0", "--samples", "8",
                              "--arms", "accum"])["arms"]["accum"]["val_loss"]

    def ours_at_start(x, y, seed, outputs, dtype=torch.float32, regression=False):
        tx, ty, vx, vy = split(x, y, seed)
        model = built(seed, lambda: nn.Linear(tx[0].numel(), outputs), dtype)
        if regression:
            loss = lambda mdl, a, b: F.mse_loss(mdl(a.to(dtype)), b.to(dtype), reduction="sum")  # noqa: E731
        else:
            loss = lambda mdl, a, b: sample_loss(mdl, a.to(dtype).flatten(1), b)  # noqa: E731
        return evaluate(model, vx, vy, loss, len(vx))

    check("spirals", ours_at_start(*spirals(6000, 42), 42, 3), val_loss_at_start(["--data", "spirals"]))
    check("spirals, 777 samples, seed 9", ours_at_start(*spirals(777, 9), 9, 3),
          val_loss_at_start(["--data", "spirals", "--synthetic-samples", "777", "--seed", "9"]))
    check("blobs", ours_at_start(*blobs(20000, 32, 42), 42, 10), val_loss_at_start(["--data", "blobs"]))
    check("blobs:2x3x4 in float64", ours_at_start(*blobs(20000, 24, 3), 3, 10, torch.float64),
          val_loss_at_start(["--data", "blobs:2x3x4", "--seed", "3", "--dtype", "float64"]))
    check("linreg", ours_at_start(*linreg(20000, 10, 42), 42, 1, regression=True),
          val_loss_at_start(["--data", "linreg"]))

    # CSV: standardised with the training split's mean and population deviation, in float64.
    g = torch.Generator().manual_seed(1)
    feats = (torch.rand(300, 4, generator=g, dtype=torch.float64) * 100).round() / 8
    feats[:, 2] = 5.0  # constant: only centred
    names = ["b", "a", "c"]
    csv = os.path.join(folder, "t.csv")
    with open(csv, "w") as f:
        f.write("p,q,r,s,kind\n")
        for i in range(300):
            f.write(",".join(repr(v) for v in feats[i].tolist()) + "," + names[i % 3] + "\n")
    x = feats.float()
    y = torch.tensor([sorted(names).index(names[i % 3]) for i in range(300)])
    tx, ty, vx, vy = split(x, y, 42)
    mean, sd = tx.double().mean(0), tx.double().std(0, unbiased=False)
    sd = torch.where(sd < 1e-12, torch.ones_like(sd), sd)
    model = built(42, lambda: nn.Linear(4, 3))
    ours = evaluate(model, ((vx.double() - mean) / sd).float(), vy, sample_loss, len(vx))
    check("csv", ours, val_loss_at_start(["--data", "csv:" + csv, "--label", "kind"]))

    # Text: a byte-order mark, CR LF, blank lines, a tab, a lone CR, a cut line.
    raw = b"\xef\xbb\xbfthe first line\r\n  \t \n\nsecond\tline\rwith a lone CR\n" + \
        b"".join(b"line %d %s\n" % (i, b"x" * (i * 7 % 50)) for i in range(40)) + \
        b"\r\n  trailing spaces kept  \n" + b"y" * 300 + b"\nlast line without LF"
    text = os.path.join(folder, "edge.txt")
    with open(text, "wb") as f:
        f.write(raw)
    rows = [[2] + list(s) + [3] for s in text_sequences(raw)]
    train, _, val, _ = split(rows, rows, 42)
    summary = engine(["--data", "text:" + text, "--model", "charlm", "--lr", "0", "--samples", "4",
                      "-m", "2", "-k", "2", "--arms", "accum"])
    model = built(42, lambda: CharGru(64))
    tokens = sum(len(r) - 1 for r in val)
    check("text validation loss", evaluate(model, val, val, text_loss, tokens, batch=64),
          summary["arms"]["accum"]["val_loss"])
    lengths = [len(r) - 1 for r in train]
    check("text dataset line", "%d train / %d validation" % (len(train), len(val)) +
          ", sample [%d], text of bytes, %d train tokens, sequences of %d to %d tokens" % (
              max(len(r) for r in rows), sum(lengths), min(lengths), max(lengths)),
          summary["dataset"].split(": ", 1)[1])

    # Whole runs: the final weights of every arm.
    x, y = spirals(6000, 42)
    tx, ty, _, _ = split(x, y, 42)
    runs = [
        ("SGD, 6,400 samples across an epoch end", 6400,
         {"optimizer": "sgd", "lr": 0.05, "k": 8}, ["--lr", "0.05"]),
        ("Adam, clipping, cosine, warm-up, flush-exact, linear LR scaling", 6000,
         {"optimizer": "adam", "lr": 0.002, "k": 8, "clip": 0.5, "cosine": True, "warmup": 500,
          "policy": "flush-exact", "linear": True},
         ["--optimizer", "adam", "--lr", "0.002", "--clip-norm", "0.5", "--lr-schedule", "cosine",
          "--warmup-samples", "500", "--window-policy", "flush-exact", "--lr-scaling", "linear"]),
    ]
    torch.manual_seed(3)
    dropout = os.path.join(folder, "dropout.pt")
    torch.jit.script(DropoutMlp()).save(dropout)
    runs.append(("a TorchScript model with dropout, from the file's weights", 1024,
                 {"optimizer": "sgd", "lr": 0.05, "k": 8, "model": dropout},
                 ["--lr", "0.05", "--model", "torchscript:" + dropout]))
    for name, samples, opt, args in runs:
        arms = engine(["--data", "spirals", "--samples", str(samples), "-m", "8", "-k", "8",
                       *args])["arms"]
        for arm in ("no-accum", "accum", "big-batch"):
            check("%s: %s" % (name, arm), train_arm(arm, tx, ty, 42, 8, 8, samples, opt),
                  arms[arm]["weights_digest"])

    if failures:
        raise SystemExit("%d of the manual's rules do not give the engine's numbers: %s" %
                         (len(failures), "; ".join(failures)))
    print("every number rebuilt from the manual equals the engine's")


if __name__ == "__main__":
    main()
