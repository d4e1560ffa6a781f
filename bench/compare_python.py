#!/usr/bin/python3
"""Engine vs the PyTorch Python loop, in one run, interleaved, medians of repeats.

Usage: bench/compare_python.py [--cli build/app/cli/accumlab-cli] [--repeats 5] [--threads 1,2]
Reports samples/s of one arm for MLP 784-256-10 at m ∈ {8, 32}, K ∈ {1, 8}, with the engine's
noise statistics off and on, and the ratios engine/Python and noise on/off.
(bench/compare_bare.sh compares the engine with the bare LibTorch C++ loop.)
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
            for k in (1, 8):
                runs = {key: [] for key in ("py", "off", "on")}
                for _ in range(args.repeats):  # interleaved, so drift hits every variant alike
                    runs["py"].append(python(m, k, samples, threads))
                    runs["off"].append(engine(args.cli, m, k, samples, threads, noise=False))
                    runs["on"].append(engine(args.cli, m, k, samples, threads, noise=True))
                med = {key: statistics.median(v) for key, v in runs.items()}
                rows.append((threads, m, k, med))
                print(f"threads={threads} m={m} K={k}: " +
                      ", ".join(f"{key}={v:,.0f}" for key, v in med.items()),
                      file=sys.stderr, flush=True)

    print("| threads | m | K | Python | engine, noise off | engine, noise on | off/Python |"
          " noise on/off |")
    print("|---|---|---|---|---|---|---|---|")
    for threads, m, k, med in rows:
        print(f"| {threads} | {m} | {k} | {med['py']:,.0f} | {med['off']:,.0f} | "
              f"{med['on']:,.0f} | {med['off'] / med['py']:.2f}× | {med['on'] / med['off']:.2f}× |")


if __name__ == "__main__":
    main()
