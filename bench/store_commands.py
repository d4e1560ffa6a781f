#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Wall time and peak memory of the store commands, before and after the CLI split.

Usage: bench/store_commands.py [BUILD_DIR] [--rows N] [--rounds R] [--db FILE]

Fills a run store with at least N step-metric rows (default 1,000,000) by real runs (kept in
--db FILE between invocations), then times, interleaved R times each:
  accumlab-cli    COMMAND   (links only the store: the programs users call)
  accumlab-engine COMMAND   (the same command in the program that links LibTorch and Qt:
                             what accumlab-cli was before the split)
for `list`, `--help` and `show ID`, and prints the medians of wall time and peak RSS (from
/usr/bin/time). Check `uptime` first: a loaded machine inflates times.
"""
import argparse
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time


def fill(cli, db, rows):
    """Real runs until the store holds `rows` step-metric rows."""
    def count():
        if not os.path.exists(db):
            return 0
        with sqlite3.connect(db) as c:
            return c.execute("SELECT count(*) FROM step_metrics").fetchone()[0]
    have = count()
    while have < rows:
        # m=1, K=1 on the smallest model: one row per sample and arm, ~3 rows per sample.
        samples = min(200_000, max(1000, (rows - have) // 3 + 1000))
        subprocess.run([cli, "run", "--data", "linreg", "--model", "logreg", "--micro-batch", "1",
                        "--accum", "1", "--samples", str(samples), "--no-noise-stats",
                        "--db", db, "-q"], check=True, stdout=subprocess.DEVNULL,
                       env=dict(os.environ, OMP_NUM_THREADS="1"))
        have = count()
        print(f"  store: {have:,} step rows", file=sys.stderr)
    return have


def measure(argv):
    """(wall seconds, peak RSS MiB) of one run of argv. The RSS comes from /usr/bin/time: a
    child forked from this Python would carry Python's own high-water mark across exec."""
    t0 = time.perf_counter()
    proc = subprocess.run(["/usr/bin/time", "-f", "%M"] + argv, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {proc.stderr}")
    return wall, int(proc.stderr.strip().splitlines()[-1]) / 1024


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build", nargs="?", default="build")
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--db")
    args = ap.parse_args()
    cli = os.path.join(args.build, "app/cli/accumlab-cli")
    engine = os.path.join(args.build, "app/cli/accumlab-engine")
    tmp = tempfile.mkdtemp()
    db = args.db or os.path.join(tmp, "runs.sqlite")
    rows = fill(cli, db, args.rows)
    with sqlite3.connect(db) as c:
        runs = c.execute("SELECT count(*) FROM runs").fetchone()[0]
        last = c.execute("SELECT max(id) FROM runs").fetchone()[0]
    print(f"store: {rows:,} step-metric rows in {runs} runs; load {os.getloadavg()[0]:.2f}")
    commands = {"list": ["list", "--db", db], "--help": ["--help"],
                f"show {last}": ["show", str(last), "--db", db]}
    results = {(name, prog): [] for name in commands for prog in ("cli", "engine")}
    for r in range(args.rounds):
        for name, sub in commands.items():
            pair = [("cli", cli), ("engine", engine)]
            if r % 2:
                pair.reverse()  # alternate the order so drift favours neither
            for prog, path in pair:
                results[(name, prog)].append(measure([path] + sub))
    print(f"{'command':<12} {'accumlab-cli':>22} {'with LibTorch (before)':>24} {'ratio':>7}")
    for name in commands:
        a = results[(name, "cli")]
        b = results[(name, "engine")]
        wa = statistics.median(w for w, _ in a) * 1000
        wb = statistics.median(w for w, _ in b) * 1000
        ma = statistics.median(m for _, m in a)
        mb = statistics.median(m for _, m in b)
        print(f"{name:<12} {wa:8.1f} ms {ma:7.1f} MiB {wb:10.1f} ms {mb:7.1f} MiB {wb / wa:6.1f}x")
    print(f"medians of {args.rounds} interleaved rounds; load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
