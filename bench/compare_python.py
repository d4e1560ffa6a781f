#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Engine vs the PyTorch Python loop, in one run, interleaved, medians of repeats.

Usage: bench/compare_python.py [--cli build/app/cli/accumlab-cli] [--repeats 5] [--threads 1,2]
                               [--device cpu|cuda] [--models mlp,cnn] [--micro-batches 8,32]
                               [--accums 1,8] [--python /usr/bin/python3] [--samples-scale 1]
Reports samples/s of one arm for each model (MLP 784-256-10; the CNN on 1x28x28 images) at
each m and K, with the engine's noise statistics off and on, and the ratios engine/Python and
noise on/off. The defaults are the CPU table of docs/performance.md; scripts/device-check runs it on CUDA
with the Python that has the CUDA torch.
(bench/compare_bare.sh compares the engine with the bare LibTorch C++ loop.)
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = {"mlp": ["--data", "blobs:784", "--model", "mlp:256"],
        "cnn": ["--data", "blobs:1x28x28", "--model", "cnn"]}


def engine(args, model, m, k, samples, threads, noise):
    arm = "accum" if k > 1 else "no-accum"
    cmd = [args.cli, "run", *DATA[model], "--synthetic-samples", "20000",
           "--arms", arm, "-m", str(m), "-k", str(k), "--samples", str(samples),
           "--threads", str(threads), "--eval-every", str(10 * samples), "--device", args.device,
           "--json", "-q", "--no-store"]
    if not noise:
        cmd.append("--no-noise-stats")
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env(threads)).stdout
    return json.loads(out)["arms"][arm]["samples_per_s"]


def python(args, model, m, k, samples, threads):
    cmd = [args.python, os.path.join(HERE, "python_reference.py"), "--micro-batch", str(m),
           "--accum", str(k), "--samples", str(samples), "--threads", str(threads),
           "--model", model, "--device", args.device]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env(threads)).stdout
    return json.loads(out)["samples_per_s"]


def env(threads):
    e = dict(os.environ)
    e["OMP_NUM_THREADS"] = str(threads)
    e["OPENBLAS_NUM_THREADS"] = str(threads)
    return e


def budget(m, scale):
    """Samples per run: 24,000 at m = 8, 64,000 at m = 32 (the runs of docs/performance.md), 2,000·m above."""
    base = {8: 24000, 32: 64000}.get(m, max(24000, 2000 * m))
    return max(m * 64, int(base * scale))


def ints(text):
    return [int(v) for v in text.split(",")]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--cli", default=os.path.join(HERE, "..", "build", "app", "cli", "accumlab-cli"))
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--threads", default="1,2")
    p.add_argument("--device", default="cpu")
    p.add_argument("--models", default="mlp")
    p.add_argument("--micro-batches", default="8,32")
    p.add_argument("--accums", default="1,8")
    p.add_argument("--python", default="/usr/bin/python3")
    p.add_argument("--samples-scale", type=float, default=1.0)
    args = p.parse_args()

    rows = []
    for threads in ints(args.threads):
        for model in args.models.split(","):
            for m in ints(args.micro_batches):
                samples = budget(m, args.samples_scale)
                for k in ints(args.accums):
                    runs = {key: [] for key in ("py", "off", "on")}
                    for _ in range(args.repeats):  # interleaved, so drift hits every variant alike
                        runs["py"].append(python(args, model, m, k, samples, threads))
                        runs["off"].append(engine(args, model, m, k, samples, threads, noise=False))
                        runs["on"].append(engine(args, model, m, k, samples, threads, noise=True))
                    med = {key: statistics.median(v) for key, v in runs.items()}
                    rows.append((threads, model, m, k, med))
                    print(f"{args.device} threads={threads} {model} m={m} K={k}: " +
                          ", ".join(f"{key}={v:,.0f}" for key, v in med.items()),
                          file=sys.stderr, flush=True)

    print(f"device {args.device}, medians of {args.repeats} interleaved runs, samples/s")
    print()
    print("| threads | model | m | K | Python | engine, noise off | engine, noise on | off/Python |"
          " noise on/off |")
    print("|---|---|---|---|---|---|---|---|---|")
    for threads, model, m, k, med in rows:
        print(f"| {threads} | {model} | {m} | {k} | {med['py']:,.0f} | {med['off']:,.0f} | "
              f"{med['on']:,.0f} | {med['off'] / med['py']:.2f}× | {med['on'] / med['off']:.2f}× |")


if __name__ == "__main__":
    main()
