#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""kill -9 and resume: `accumlab-cli run --checkpoint-every` killed at a random point after a
checkpoint, then `run --resume RUN_ID`, against an uninterrupted run of the same config.

Each round requires the resumed run's final weights (the summary's weights_digest of every
arm) and every stored metric row to equal the uninterrupted run's to the bit (wall-clock
fields aside), step numbers continuous with no duplicate, and the checkpoint gone once the
run has ended.

Usage: resume_test.py PATH/TO/accumlab-cli --dtype float32|float64 [--rounds N] [--report]
"""
import argparse
import json
import math
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

# 24,000 samples: six checkpoints, evaluations and probes on both sides of each, and a kill
# point anywhere in the middle of the run, in about 3 s a run.
CONFIG = ["--data", "spirals", "--model", "mlp", "-m", "8", "-k", "4", "--samples", "24000",
          "--eval-every", "5000", "--probe-repeats", "16", "--probe-every", "6000",
          "--grad-check-every", "3", "--optimizer", "adamw", "--lr", "0.003",
          "--threads", "1", "-q", "--json"]
EVERY = "4000"
# The kill comes this share of the uninterrupted run's wall time after the first checkpoint,
# at most: the run (whose first checkpoint is a sixth of the way in) is then still training
# on a machine of any speed.
KILL_WITHIN = 0.5
# Columns that depend on the clock or the process, not on the training.
CLOCK = {"wall_ms", "samples_per_s", "memory_bytes"}


def run(cli, *args, check=True):
    p = subprocess.run([cli, *args], capture_output=True, text=True)
    if check and p.returncode != 0:
        raise AssertionError(f"{' '.join(args[:3])}… exited {p.returncode}: {p.stderr.strip()}")
    return p


CHECK_COLUMNS = {"grad_equiv", "grad_equiv_f64"}


def rows(db, table, order):
    con = sqlite3.connect(db)
    con.row_factory = sqlite3.Row
    out = {}
    for r in con.execute(f"SELECT r.arm, t.* FROM {table} t JOIN runs r ON r.id = t.run_id ORDER BY {order}"):
        d = {k: r[k] for k in r.keys() if k not in CLOCK and k not in ("run_id", "id")}
        out.setdefault(d.pop("arm"), []).append(d)
    con.close()
    return out


def same(a, b):
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b


def compare(ref_db, db):
    for table, order in (("step_metrics", "r.arm, t.step"), ("evals", "r.arm, t.step"),
                         ("probes", "r.arm, t.step")):
        ref, got = rows(ref_db, table, order), rows(db, table, order)
        if set(ref) != set(got):
            raise AssertionError(f"{table}: arms {sorted(got)} vs {sorted(ref)}")
        for arm in ref:
            if len(got[arm]) != len(ref[arm]):
                raise AssertionError(f"{table} {arm}: {len(got[arm])} rows vs {len(ref[arm])}")
            extra_checks = 0
            for g, r in zip(got[arm], ref[arm]):
                bad = [k for k in r if not same(g[k], r[k])]
                # The first window after a resume is gradient-checked (an irregular window);
                # the uninterrupted run did not check it. A check measures and changes nothing,
                # so only its own columns differ, on one step.
                if bad and set(bad) <= CHECK_COLUMNS and r["grad_equiv"] is None:
                    extra_checks += 1
                    bad = [] if extra_checks == 1 else bad
                if bad:
                    raise AssertionError(f"{table} {arm} step {r.get('step')}: {bad[:4]} differ "
                                         f"({[(g[k], r[k]) for k in bad[:2]]})")
            if table == "step_metrics":
                steps = [x["step"] for x in got[arm]]
                if steps != list(range(1, len(steps) + 1)):
                    raise AssertionError(f"{arm}: steps are not 1..n without gaps or repeats")


def one_round(cli, dtype, folder, index, rng, ref_db, ref_digest, ref_wall):
    db = os.path.join(folder, f"killed{index}.sqlite")
    checkpoint = db + ".checkpoints/experiment-1.pt"
    child = subprocess.Popen([cli, "run", *CONFIG, "--dtype", dtype, "--db", db,
                              "--checkpoint-every", EVERY],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not os.path.exists(checkpoint):
        if child.poll() is not None or time.monotonic() > deadline:
            child.kill()
            raise AssertionError("the run wrote no checkpoint before it ended")
        time.sleep(0.01)
    # A random point after (at least) the first checkpoint.
    time.sleep(rng.uniform(0.0, KILL_WITHIN * ref_wall))
    child.send_signal(signal.SIGKILL)
    child.wait()
    if child.returncode != -signal.SIGKILL:
        return None  # it finished first: no crash to resume from
    runs = json.loads(run(cli, "list", "--db", db, "--json").stdout)
    statuses = {r["status"] for r in runs}
    if statuses != {"interrupted"}:
        raise AssertionError(f"killed runs are {statuses}, not interrupted")
    con = sqlite3.connect(db)
    stored = con.execute("SELECT max(step) FROM step_metrics").fetchone()[0] or 0
    con.close()
    resumed = run(cli, "run", "--resume", str(runs[0]["id"]), "--db", db, "--json")
    out = json.loads(resumed.stdout)
    digest = {arm: s["weights_digest"] for arm, s in out["arms"].items()}
    if digest != ref_digest:
        raise AssertionError(f"final weights differ: {digest} vs {ref_digest}")
    compare(ref_db, db)
    after = json.loads(run(cli, "list", "--db", db, "--json").stdout)
    if {r["status"] for r in after} != {"finished"} or len(after) != len(runs):
        raise AssertionError(f"resumed runs are {[r['status'] for r in after]}")
    if os.path.exists(checkpoint):
        raise AssertionError("the checkpoint outlived its run")
    return stored


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cli")
    ap.add_argument("--dtype", default="float64")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--report", action="store_true")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    with tempfile.TemporaryDirectory() as folder:
        ref_db = os.path.join(folder, "reference.sqlite")
        start = time.monotonic()
        ref = json.loads(run(a.cli, "run", *CONFIG, "--dtype", a.dtype, "--db", ref_db).stdout)
        ref_wall = time.monotonic() - start
        ref_digest = {arm: s["weights_digest"] for arm, s in ref["arms"].items()}
        done = 0
        for i in range(a.rounds * 3):
            if done == a.rounds:
                break
            stored = one_round(a.cli, a.dtype, folder, i, rng, ref_db, ref_digest, ref_wall)
            if stored is None:
                continue
            done += 1
            if a.report:
                print(f"round {done}: killed with {stored} steps stored; resumed bit-identical")
        if done < a.rounds:
            raise AssertionError(f"only {done} of {a.rounds} runs were killed before they ended")
    print(f"{done}/{a.rounds} killed runs resumed bit-identical ({a.dtype})")


if __name__ == "__main__":
    try:
        main()
    except AssertionError as e:
        print(f"FAIL: {e}", file=sys.stderr)
        sys.exit(1)
