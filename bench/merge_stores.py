#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Times `accumlab-cli merge` (docs/clusters.md#bringing-runs-home): COUNT stores of one run
with ROWS step rows each, merged into a new store, then merged again (which adds nothing).

The stores are made from one real run: a short `accumlab-cli run` of the accum arm, whose
step rows are repeated (with new step numbers) up to ROWS, then copied COUNT times through
SQLite's backup, each copy given a run identity of its own.

Usage: merge_stores.py PATH/TO/accumlab-cli [COUNT] [ROWS]   (defaults: 100 10000)
"""
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time


def make_seed(cli, folder, rows):
    seed = os.path.join(folder, "seed.sqlite")
    subprocess.run([cli, "run", "-q", "--db", seed, "--arms", "accum", "--data", "spirals",
                    "--synthetic-samples", "512", "--samples", "4096", "--micro-batch", "8",
                    "--accum", "1", "--threads", "1", "--eval-every", "100000000"],
                   check=True, stdout=subprocess.DEVNULL)
    con = sqlite3.connect(seed)
    run_id, have = con.execute("SELECT run_id, max(step) FROM step_metrics GROUP BY run_id").fetchone()
    columns = [r[1] for r in con.execute("PRAGMA table_info(step_metrics)")]
    others = ", ".join(c for c in columns if c != "step")
    while have < rows:
        n = min(have, rows - have)
        con.execute(f"INSERT INTO step_metrics (step, {others}) SELECT step + {have}, {others} "
                    f"FROM step_metrics WHERE run_id = ? AND step <= ?", (run_id, n))
        have += n
    con.execute("UPDATE runs SET steps = ? WHERE id = ?", (rows, run_id))
    con.commit()
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return con


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    cli = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    rows = int(sys.argv[3]) if len(sys.argv) > 3 else 10000
    with tempfile.TemporaryDirectory() as folder:
        seed = make_seed(cli, folder, rows)
        sources = []
        for i in range(count):
            path = os.path.join(folder, f"store-{i:03d}.sqlite")
            copy = sqlite3.connect(path)
            seed.backup(copy)
            copy.execute("UPDATE runs SET uid = lower(hex(randomblob(16)))")
            copy.commit()
            copy.close()
            sources.append(path)
        size = sum(os.path.getsize(p) for p in sources)
        dest = os.path.join(folder, "home.sqlite")
        timings = []
        for attempt in ("first", "again"):
            start = time.monotonic()
            r = subprocess.run([cli, "merge", "--json", "--db", dest, *sources], capture_output=True,
                               text=True, check=True)
            took = time.monotonic() - start
            out = json.loads(r.stdout)
            added = sum(s["step_rows_added"] for s in out["sources"])
            runs = sum(s["runs_added"] for s in out["sources"])
            timings.append(took)
            print(f"{attempt}: {took:.2f} s, {runs} runs and {added} step rows added")
        print(f"{count} stores of {rows} step rows ({size / 1e6:.0f} MB in all) into a new store: "
              f"{timings[0]:.2f} s ({count * rows / timings[0]:,.0f} rows/s); merging them again "
              f"(nothing added): {timings[1]:.2f} s; the store: {os.path.getsize(dest) / 1e6:.0f} MB")


if __name__ == "__main__":
    main()
