#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""`accumlab-cli run` trains the arms at once by default, to the same numbers (docs/cli.md).

Usage: arm_threads_test.py CLI
  The default run says arm_threads 0 (one per core) in its --json config, and every number of
  every arm's summary, and the variance probe, equals to the last digit the run with
  --arm-threads 1 (one after another) and with --arm-threads 3 (three threads on any machine):
  only the timings and the process's memory may differ.
"""
import json
import os
import subprocess
import sys

CLI = sys.argv[1]
RUN = ["run", "--no-store", "--json", "-q", "--data", "spirals", "--samples", "3072",
       "--micro-batch", "8", "--accum", "4", "--arms", "no-accum,accum,big-batch,pitfall:sum",
       "--eval-every", "1024"]
# What the clock and the process decide, and how the run was spread on the machine ("device":
# "cpu (1 thread), 2 arms at once"), not the training: left out of the comparison.
TIMINGS = {"samples_per_s", "tokens_per_s", "gflop_per_s", "ceiling_gflop_per_s",
           "wall_ms", "wall_s", "allreduce_s",
           "peak_memory_bytes", "elapsed_s", "started_at", "ended_at", "device"}


def summary(*extra):
    out = subprocess.run([CLI, *RUN, *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, timeout=300, check=False)
    if out.returncode != 0:
        sys.exit(f"FAIL: accumlab-cli {' '.join(RUN + list(extra))} exited {out.returncode}: "
                 f"{out.stderr.strip()}")
    return json.loads(out.stdout)


def numbers(value, path=""):
    """{path: value} of every leaf, timings left out."""
    if isinstance(value, dict):
        found = {}
        for key, item in value.items():
            if key not in TIMINGS:
                found.update(numbers(item, f"{path}.{key}"))
        return found
    if isinstance(value, list):
        found = {}
        for i, item in enumerate(value):
            found.update(numbers(item, f"{path}[{i}]"))
        return found
    return {path: value}


def main():
    default = summary()
    failures = []
    if default["config"].get("arm_threads") != 0:
        failures.append(f"the default run's arm_threads is {default['config'].get('arm_threads')}, "
                        "not 0 (one per core)")
    if (os.cpu_count() or 1) > 1 and "arms at once" not in default["device"]:
        failures.append(f"the default run trained on {default['device']!r}, not arms at once")
    want = numbers({k: v for k, v in default.items() if k != "config"})
    if len(want) < 40:
        failures.append(f"only {len(want)} numbers in the default summary")
    for threads in ("1", "3"):
        other = summary("--arm-threads", threads)
        if other["config"].get("arm_threads") != int(threads):
            failures.append(f"--arm-threads {threads} ran with {other['config'].get('arm_threads')}")
        got = numbers({k: v for k, v in other.items() if k != "config"})
        for path in sorted(set(want) | set(got)):
            if want.get(path, "missing") != got.get(path, "missing"):
                failures.append(f"{path}: {want.get(path, 'missing')!r} by default, "
                                f"{got.get(path, 'missing')!r} with --arm-threads {threads}")
    for f in failures:
        print(f"FAIL: {f}")
    if failures:
        return 1
    print(f"{len(want)} numbers equal by default and with --arm-threads 1 and 3")
    return 0


if __name__ == "__main__":
    sys.exit(main())
