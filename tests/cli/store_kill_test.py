#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Kill test of the run store: SIGKILL `accumlab-cli run` mid-run, reopen, and check.

For each repetition: start a long synthetic run storing into a fresh DB, kill it 1.2-2.2 s
after it reports its run ids, reopen the DB with `accumlab-cli list` (a new process), and
require PRAGMA integrity_check = ok, every run `interrupted`, and each run's stored rows to
reach at least the point one second before the kill (wall_ms of its last step).

Usage: store_kill_test.py PATH/TO/accumlab-cli [--repeat N] [--report]
Exit 0 when every repetition passes; --report prints per-repetition figures and medians.
"""
import argparse
import json
import os
import random
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

# Rows must reach this close to the kill (the bound: one second).
MAX_LAG_MS = 1000.0


def one_kill(cli, folder, index, rng):
    db = os.path.join(folder, f"kill{index}.sqlite")
    cmd = [cli, "run", "--data", "spirals", "--samples", "50000000", "--eval-every", "20000",
           "--db", db, "-q", "--threads", "1"]
    child = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    line = child.stderr.readline()
    t0 = time.monotonic()
    if not line.startswith("Storing as"):
        child.kill()
        child.wait()
        raise AssertionError(f"run did not report its ids: {line!r}")
    time.sleep(rng.uniform(1.2, 2.2))
    t_kill = time.monotonic()
    child.send_signal(signal.SIGKILL)
    child.wait()
    if child.returncode != -signal.SIGKILL:
        raise AssertionError(f"run ended by itself before the kill (exit {child.returncode})")
    alive_ms = (t_kill - t0) * 1000.0

    # Reopen from a new process: the stale runs become `interrupted`.
    listed = subprocess.run([cli, "list", "--db", db, "--json"], capture_output=True, text=True)
    if listed.returncode != 0:
        raise AssertionError(f"list failed after the kill: {listed.stderr.strip()}")
    runs = json.loads(listed.stdout)
    if len(runs) != 3:
        raise AssertionError(f"expected 3 runs, found {len(runs)}")

    con = sqlite3.connect(db)
    integrity = con.execute("PRAGMA integrity_check").fetchone()[0]
    if integrity != "ok":
        raise AssertionError(f"integrity_check: {integrity}")
    lags = []
    for run in runs:
        if run["status"] != "interrupted":
            raise AssertionError(f"run {run['id']} is {run['status']}, not interrupted")
        last, first = con.execute(
            "SELECT max(wall_ms), min(wall_ms) FROM step_metrics WHERE run_id = ?",
            (run["id"],)).fetchone()
        if last is None:
            raise AssertionError(f"run {run['id']} has no stored steps")
        # wall_ms counts from just before the rows were created, t0 from just after: the
        # first step's wall_ms (taken after t0's print) bounds that offset, so this lag is
        # an upper bound of the true one.
        lags.append(alive_ms + first - last)
    con.close()
    worst = max(lags)
    if worst > MAX_LAG_MS:
        raise AssertionError(f"stored rows end {worst:.0f} ms before the kill (limit {MAX_LAG_MS:.0f})")
    return alive_ms, worst


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("cli")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--report", action="store_true")
    args = parser.parse_args()
    rng = random.Random(7)
    results = []
    with tempfile.TemporaryDirectory() as folder:
        for i in range(args.repeat):
            try:
                alive, lag = one_kill(args.cli, folder, i, rng)
            except AssertionError as e:
                print(f"FAIL kill {i + 1}/{args.repeat}: {e}", file=sys.stderr)
                return 1
            results.append((alive, lag))
            if args.report:
                print(f"kill {i + 1:2d}: killed after {alive:6.0f} ms, rows end {lag:5.0f} ms "
                      f"before the kill, integrity ok, 3/3 runs interrupted")
    lags = [lag for _, lag in results]
    print(f"{len(results)} kills: integrity ok and runs interrupted in all; rows end before the "
          f"kill by median {statistics.median(lags):.0f} ms, max {max(lags):.0f} ms "
          f"(limit {MAX_LAG_MS:.0f} ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
