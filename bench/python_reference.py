#!/usr/bin/python3
"""The PyTorch training loop a user would write for gradient accumulation.

Same model (MLP 784-256-10), data shape, micro-batch m, K, optimizer (SGD, momentum 0.9) and
loss normalisation (sum of per-sample losses / window size) as the engine. Prints one JSON
object with the training throughput (samples per second of the loop, data indexing included).
"""
import argparse
import json
import time

import torch
import torch.nn.functional as F


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--micro-batch", type=int, required=True)
    p.add_argument("--accum", type=int, required=True)
    p.add_argument("--samples", type=int, required=True)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--train-size", type=int, default=20000)
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)

    x_all = torch.randn(args.train_size, 784)
    y_all = torch.randint(10, (args.train_size,))
    model = torch.nn.Sequential(torch.nn.Linear(784, 256), torch.nn.ReLU(), torch.nn.Linear(256, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

    m, k = args.micro_batch, args.accum
    window = m * k
    perm = torch.randperm(args.train_size)
    pos = 0
    seen = 0
    start = time.perf_counter()
    while seen < args.samples:
        opt.zero_grad()
        for _ in range(k):
            if pos + m > args.train_size:
                perm = torch.randperm(args.train_size)
                pos = 0
            idx = perm[pos:pos + m]
            pos += m
            loss = F.cross_entropy(model(x_all[idx]), y_all[idx], reduction="sum") / window
            loss.backward()
        opt.step()
        seen += window
    elapsed = time.perf_counter() - start
    print(json.dumps({"samples_per_s": seen / elapsed, "samples": seen, "seconds": elapsed}))


if __name__ == "__main__":
    main()
