#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Tokens per second of accumulation on the fortunes: AccumLab's charlm against the same GRU
trained in a plain PyTorch loop.

Usage: bench/charlm_tokens.py ACCUMLAB_CLI [--samples 2048] [--rounds 3]

Both train the accum arm alone (m = 8, K = 8, float32, one thread, Adam at 3e-3) on quotes of
Debian's fortunes: AccumLab with `run --data fortunes --model charlm --arms accum` (its
summary's tokens_per_s counts training time only, as this loop does), Python with the same
network (byte embedding 32 → GRU 64 → linear 256), every micro-batch padded to its own
longest quote, each summed token loss divided by the window's tokens. Rounds alternate the
two; the medians and their ratio are printed.
"""
import argparse
import json
import os
import random
import statistics
import subprocess
import time

import torch

FORTUNES = "/usr/share/games/fortunes"
M, K, MAX_LEN = 8, 8, 256


def quotes():
    out = []
    for name in sorted(os.listdir(FORTUNES)):
        path = os.path.join(FORTUNES, name)
        if "." in name or os.path.islink(path) or not os.path.isfile(path):
            continue
        text = open(path, "rb").read()
        for q in text.split(b"\n%\n"):
            q = q.strip(b"\n")
            if not q or any(c < 0x20 and c not in (9, 10, 13) for c in q):
                continue
            try:
                q.decode("utf-8")
            except UnicodeDecodeError:
                continue
            out.append([2] + list(q[:MAX_LEN]) + [3])
    return out


class CharGru(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(256, 32)
        self.gru = torch.nn.GRU(32, 64, batch_first=True)
        self.head = torch.nn.Linear(64, 256)

    def forward(self, x):
        return self.head(self.gru(self.embed(x))[0])


def batch(rows):
    width = max(len(r) for r in rows)
    x = torch.zeros(len(rows), width - 1, dtype=torch.long)
    y = torch.full((len(rows), width - 1), -100, dtype=torch.long)
    for i, r in enumerate(rows):
        x[i, :len(r) - 1] = torch.tensor(r[:-1])
        y[i, :len(r) - 1] = torch.tensor(r[1:])
    return x, y


def python_tokens_per_s(data, samples, seed):
    torch.manual_seed(seed)
    model = CharGru()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    order = list(range(len(data)))
    random.Random(seed).shuffle(order)
    tokens, elapsed = 0, 0.0
    for start in range(0, samples, M * K):
        window = [data[i] for i in order[start:start + M * K]]
        t0 = time.perf_counter()
        batches = [batch(window[i:i + M]) for i in range(0, len(window), M)]
        window_tokens = sum(int((y != -100).sum()) for _, y in batches)
        opt.zero_grad()
        for x, y in batches:
            loss = torch.nn.functional.cross_entropy(model(x).reshape(-1, 256), y.reshape(-1),
                                                     ignore_index=-100, reduction="sum")
            (loss / window_tokens).backward()
        opt.step()
        elapsed += time.perf_counter() - t0
        tokens += window_tokens
    return tokens / elapsed


def engine_tokens_per_s(cli, samples, seed):
    out = subprocess.run([cli, "run", "--data", "fortunes", "--model", "charlm", "--arms", "accum",
                          "-m", str(M), "-k", str(K), "--optimizer", "adam", "--lr", "0.003",
                          "--samples", str(samples), "--seed", str(seed), "--threads", "1",
                          "--no-store", "--json", "-q"], check=True, capture_output=True,
                         text=True).stdout
    return json.loads(out)["arms"]["accum"]["tokens_per_s"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cli")
    parser.add_argument("--samples", type=int, default=2048)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    torch.set_num_threads(1)
    torch.set_flush_denormal(True)  # as the engine does (flushDenormals in core)
    data = quotes()
    ours, theirs = [], []
    for r in range(args.rounds):
        ours.append(engine_tokens_per_s(args.cli, args.samples, r + 1))
        theirs.append(python_tokens_per_s(data, args.samples, r + 1))
        print("round %d: AccumLab %.0f tokens/s, PyTorch loop %.0f tokens/s"
              % (r + 1, ours[-1], theirs[-1]), flush=True)
    a, b = statistics.median(ours), statistics.median(theirs)
    print("median: AccumLab %.0f tokens/s, PyTorch loop %.0f tokens/s, ratio %.2f×"
          % (a, b, a / b))


if __name__ == "__main__":
    main()
