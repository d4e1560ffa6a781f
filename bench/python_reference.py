#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The PyTorch training loop a user would write for gradient accumulation.

Same model (MLP 784-256-10, or the engine's LeNet-like CNN on 1x28x28 images), data shape,
micro-batch m, K, optimizer (SGD, momentum 0.9) and loss normalisation (sum of per-sample
losses / window size) as the engine. Like the engine, it keeps the data on the host and moves
each micro-batch to the device; on CUDA, float32 is full float32 (no TF32), as in the engine.
Prints one JSON object with the training throughput (samples per second of the loop, data
indexing and copies included).
"""
import argparse
import json
import time

import torch
import torch.nn.functional as F


def make_model(name):
    if name == "mlp":
        return torch.nn.Sequential(torch.nn.Linear(784, 256), torch.nn.ReLU(), torch.nn.Linear(256, 10))
    # core/models/builtin_nets.cpp: conv 6@5x5 (padding 2), pool, conv 16@5x5, pool, 120, 84.
    return torch.nn.Sequential(
        torch.nn.Conv2d(1, 6, 5, padding=2), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Conv2d(6, 16, 5), torch.nn.ReLU(), torch.nn.MaxPool2d(2), torch.nn.Flatten(),
        torch.nn.Linear(16 * 5 * 5, 120), torch.nn.ReLU(), torch.nn.Linear(120, 84), torch.nn.ReLU(),
        torch.nn.Linear(84, 10))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--micro-batch", type=int, required=True)
    p.add_argument("--accum", type=int, required=True)
    p.add_argument("--samples", type=int, required=True)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--train-size", type=int, default=20000)
    p.add_argument("--model", choices=("mlp", "cnn"), default="mlp")
    p.add_argument("--device", default="cpu")
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    # Subnormal floats flushed to zero, as the engine does (flushDenormals in core).
    torch.set_flush_denormal(True)
    torch.manual_seed(0)
    device = torch.device(args.device)
    if device.type == "cuda":
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False

    shape = (784,) if args.model == "mlp" else (1, 28, 28)
    x_all = torch.randn(args.train_size, *shape)
    y_all = torch.randint(10, (args.train_size,))
    model = make_model(args.model).to(device)
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
            x, y = x_all[idx].to(device), y_all[idx].to(device)
            loss = F.cross_entropy(model(x), y, reduction="sum") / window
            loss.backward()
        opt.step()
        seen += window
    if device.type == "cuda":
        torch.cuda.synchronize()
    elapsed = time.perf_counter() - start
    print(json.dumps({"samples_per_s": seen / elapsed, "samples": seen, "seconds": elapsed}))


if __name__ == "__main__":
    main()
