#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""What auditing a loop costs (docs/audit.md, "What it costs"), and what a replay would.

Usage: PYTHONPATH=python bench/audit_cost.py [--repeats 5] [--windows 40] [--threads 1]

Two plain loops, each timed bare, audited at every window, audited with every=10, and with a
replay of each window (one more forward and backward of the window as one padded batch, the
least a replay costs), runs interleaved, each timed in the process's CPU time (one thread:
what the loop and its audit cost, not what other processes take). Printed as multiples of the
bare loop: the fastest run over the fastest bare run (what the machine can do, least disturbed
by other load), then the median and range of each run's ratio to the bare run beside it.
  mlp    an MLP 784-256-128-10 on random rows, CrossEntropyLoss, m = 32, K = 4, SGD momentum
  tokens a GRU language model with a Hugging Face-style `labels` loss inside it, padded
         sequences of 8 to 48 tokens, m = 8, K = 4, AdamW
For the token loop it also prints how far the replay's gradient is from the audit's
reference (built from the loop's own per-micro-batch gradients): the two references agree.
"""
import argparse
import os
import statistics
import time

# One BLAS thread, read when torch loads: an idle OpenBLAS thread that spins would count in
# the process's CPU time.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
import torch  # noqa: E402

from accumlab import audit  # noqa: E402

IGNORED = -100


class Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(784, 256), torch.nn.ReLU(),
                                       torch.nn.Linear(256, 128), torch.nn.ReLU(),
                                       torch.nn.Linear(128, 10))

    def forward(self, x):
        return self.net(x)


class GruLm(torch.nn.Module):
    def __init__(self, vocab=64):
        super().__init__()
        self.vocab = vocab
        self.embed = torch.nn.Embedding(vocab, 32)
        self.gru = torch.nn.GRU(32, 64, batch_first=True)
        self.head = torch.nn.Linear(64, vocab)

    def forward(self, input_ids, attention_mask=None, labels=None):
        logits = self.head(self.gru(self.embed(input_ids))[0])
        out = {"logits": logits}
        if labels is not None:
            out["loss"] = torch.nn.functional.cross_entropy(
                logits[:, :-1].reshape(-1, self.vocab), labels[:, 1:].reshape(-1),
                ignore_index=IGNORED)
        return out


def padded(rows):
    width = max(len(r) for r in rows)
    ids = torch.zeros(len(rows), width, dtype=torch.long)
    labels = torch.full((len(rows), width), IGNORED, dtype=torch.long)
    for i, r in enumerate(rows):
        ids[i, :len(r)], labels[i, :len(r)] = r, r
    return {"input_ids": ids, "labels": labels}


def mlp_setup(windows):
    g = torch.Generator().manual_seed(0)
    m, k = 32, 4
    x = torch.randn(windows * m * k, 784, generator=g)
    y = torch.randint(0, 10, (windows * m * k,), generator=g)
    return [[(x[s:s + m], y[s:s + m]) for s in range(w * m * k, (w + 1) * m * k, m)]
            for w in range(windows)]


def token_setup(windows):
    g = torch.Generator().manual_seed(0)
    m, k = 8, 4
    rows = [torch.randint(1, 64, (int(n),), generator=g)
            for n in torch.randint(8, 49, (windows * m * k,), generator=g)]
    return [[rows[s:s + m] for s in range(w * m * k, (w + 1) * m * k, m)]
            for w in range(windows)]


def run_mlp(data, mode):
    torch.manual_seed(1)
    model = Mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    criterion = torch.nn.CrossEntropyLoss()

    def loop():
        for window in data:
            n = sum(len(y) for _, y in window)
            opt.zero_grad()
            for x, y in window:
                (criterion(model(x), y) * len(y) / n).backward()
            if mode == "replay":  # the window again as one batch
                xs = torch.cat([x for x, _ in window])
                ys = torch.cat([y for _, y in window])
                torch.autograd.grad(criterion(model(xs), ys), list(model.parameters()))
            opt.step()
    return timed(model, opt, criterion, loop, mode)


def run_tokens(data, mode, agreement=None):
    torch.manual_seed(1)
    model = GruLm()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    params = list(model.parameters())

    def loop():
        for window in data:
            micro = [padded(rows) for rows in window]
            tokens = [int((b["labels"][:, 1:] != IGNORED).sum()) for b in micro]
            opt.zero_grad()
            for batch, n in zip(micro, tokens):
                (model(**batch)["loss"] * n / sum(tokens)).backward()
            if mode == "replay":
                # The window as one batch padded to its longest: the pad keys' values are
                # input_ids 0 and labels the ignore index.
                whole = padded([r for rows in window for r in rows])
                replay = torch.autograd.grad(model(**whole)["loss"], params)
                if agreement is not None:
                    flat = torch.cat([g.reshape(-1) for g in replay]).double()
                    loop_grad = torch.cat([p.grad.reshape(-1) for p in params]).double()
                    agreement.append(((flat - loop_grad).norm() / flat.norm()).item())
            opt.step()
    return timed(model, opt, None, loop, mode)


def timed(model, opt, criterion, loop, mode):
    start = time.process_time()
    if mode.startswith("audit"):
        every = int(mode.split("-")[1])
        with audit.watch(model, opt, loss=criterion, every=every):
            loop()
    else:
        loop()
    return time.process_time() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--windows", type=int, default=40)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    modes = ["bare", "audit-1", "audit-10", "replay"]
    loops = {"mlp": (run_mlp, mlp_setup(args.windows)),
             "tokens": (run_tokens, token_setup(args.windows))}
    agreement = []
    run_tokens(loops["tokens"][1][:5], "replay", agreement)  # also warms both loops up
    run_mlp(loops["mlp"][1][:5], "audit-1")
    times = {(name, mode): [] for name in loops for mode in modes}
    for _ in range(args.repeats):
        for name, (run, data) in loops.items():
            for mode in modes:  # interleaved: a drift of the machine hits every mode alike
                times[(name, mode)].append(run(data, mode))
    print("torch %s, %d thread(s), %d windows per loop, %d runs each: the fastest run's time "
          "over the fastest bare run's (the median ratio of interleaved runs and its range)"
          % (torch.__version__, args.threads, args.windows, args.repeats))
    # bare s: the fastest bare loop's CPU seconds; the other columns are multiples of it.
    print("%-7s %8s  %-25s %-25s %-25s" % ("loop", "bare s", "audit", "every=10", "replay"))
    for name in loops:
        bare = times[(name, "bare")]
        cells = []
        for m in modes[1:]:
            # Each repeat's ratio to the bare loop of the same repeat (interleaved runs).
            r = [t / b for t, b in zip(times[(name, m)], bare)]
            cells.append("%.2fx (%.2f, %.2f-%.2f)" % (min(times[(name, m)]) / min(bare),
                                                       statistics.median(r), min(r), max(r)))
        print("%-7s %8.3f  %-25s %-25s %-25s" % (name, min(bare), *cells))
    print("tokens: replay vs the loop's own gradient, largest relative difference %.1e"
          % max(agreement))


if __name__ == "__main__":
    main()
