#!/usr/bin/python3
"""Engine vs the PyTorch Python loop, in one run, interleaved, medians of repeats.

Usage: bench/compare_python.py [--cli build/app/cli/accumlab-cli] [--repeats 5]
Reports samples/s for MLP 784-256-10 at m ∈ {8, 32}, K ∈ {1, 8}, and the ratios
engine/Python, accum/no-accum, noise statistics on/off, for 1 and 2 CPU threads.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def engine(cli, m, k, samples, threads, noise):
    arm = "accum" if k > 1 else "no-accum"
    cmd = [cli, "run", "--data", "blobs:784", "--synthetic-samples", "20000", "--model", "mlp:256",
           "--arms", arm, "-m", str(m), "-k", str(k), "--samples", str(samples),
           "--threads", str(threads), "--eval-every", str(10 * samples), "--device", "cpu",
           "--json", "-q", "--no-store"]
    if not noise:
        cmd.append("--no-noise-stats")
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env(threads)).stdout
    return json.loads(out)["arms"][arm]["samples_per_s"]


def python(m, k, samples, threads):
    cmd = ["/usr/bin/python3", os.path.join(HERE, "python_reference.py"), "--micro-batch", str(m),
           "--accum", str(k), "--samples", str(samples), "--threads", str(threads)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env(threads)).stdout
    return json.loads(out)["samples_per_s"]


def env(threads):
    e = dict(os.environ)
    e["OMP_NUM_THREADS"] = str(threads)
    e["OPENBLAS_NUM_THREADS"] = str(threads)
    return e


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--cli", default=os.path.join(HERE, "..", "build", "app", "cli", "accumlab-cli"))
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--threads", default="1,2")
    args = p.parse_args()

    rows = []
    for threads in [int(t) for t in args.threads.split(",")]:
        for m in (8, 32):
            samples = 24000 if m == 8 else 64000
            runs = {key: [] for key in ("py1", "py8", "e1", "e8", "e8n")}
            for _ in range(args.repeats):  # interleaved, so drift hits every variant alike
                runs["py1"].append(python(m, 1, samples, threads))
                runs["e1"].append(engine(args.cli, m, 1, samples, threads, noise=False))
                runs["py8"].append(python(m, 8, samples, threads))
                runs["e8"].append(engine(args.cli, m, 8, samples, threads, noise=False))
                runs["e8n"].append(engine(args.cli, m, 8, samples, threads, noise=True))
            med = {k: statistics.median(v) for k, v in runs.items()}
            rows.append((threads, m, med))
            print(f"threads={threads} m={m}: " + ", ".join(f"{k}={v:,.0f}" for k, v in med.items()),
                  file=sys.stderr, flush=True)

    print("| threads | m | K | Python samples/s | engine samples/s | engine/Python |"
          " accum/no-accum | noise on/off |")
    print("|---|---|---|---|---|---|---|---|")
    for threads, m, med in rows:
        print(f"| {threads} | {m} | 1 | {med['py1']:,.0f} | {med['e1']:,.0f} | "
              f"{med['e1'] / med['py1']:.2f}× | | |")
        print(f"| {threads} | {m} | 8 | {med['py8']:,.0f} | {med['e8']:,.0f} | "
              f"{med['e8'] / med['py8']:.2f}× | {med['e8'] / med['e1']:.2f}× | "
              f"{med['e8n'] / med['e8']:.2f}× |")


if __name__ == "__main__":
    main()
