#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Signals during `accumlab-cli run`: a clean stop, and a second Ctrl-C that quits at once.

Cases:
  sigint   one SIGINT mid-run: exit 130 within a few seconds, the summary printed, every run
           `stopped` in the store with its rows, integrity ok
  sigterm  the same with SIGTERM: exit 143
  twice    two SIGINTs while the first stop waits for a slow window: exit 130 at once,
           long before that window could end; the runs become `interrupted` at the next open
  gui      SIGTERM to the desktop app (off-screen) mid-run: it closes, exit 143, and every run
           is `stopped` in the store
  midread  SIGTERM while a large CSV is being read: exit 143 within READ_STOP_WITHIN_S, one
           sentence, nothing stored

Usage: run_signal_test.py CASE PATH/TO/accumlab-cli [PATH/TO/accumlab]
"""
import json
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

# A clean stop waits for the current window of one arm; these runs' windows take milliseconds.
STOP_WITHIN_S = 10.0
# A window of the slow run: 64 micro-batches of 512 images through a CNN, several seconds here.
SLOW_RUN = ["--data", "blobs:1x28x28", "--model", "cnn", "--micro-batch", "512", "--accum", "64",
            "--arms", "accum", "--samples", "100000000", "--no-noise-stats"]
QUIT_WITHIN_S = 1.5
# A stop while the data is read ends the read (and the process) within this.
READ_STOP_WITHIN_S = 1.0
# Rows of the large CSV: about 160 MB, several seconds to read and parse here.
BIG_CSV_ROWS = 6_000_000


class Failure(Exception):
    pass


def start_run(cli, db, extra):
    cmd = [cli, "run", "-q", "--threads", "1", "--db", db, "--eval-every", "1000000", *extra]
    child = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = child.stderr.readline()
    if not line.startswith("Storing as"):
        child.kill()
        raise Failure(f"run did not report its ids: {line!r} {child.stderr.read()[:400]}")
    return child


def stored_runs(cli, db):
    listed = subprocess.run([cli, "list", "--db", db, "--json"], capture_output=True, text=True)
    if listed.returncode != 0:
        raise Failure(f"list failed: {listed.stderr.strip()}")
    con = sqlite3.connect(db)
    integrity = con.execute("PRAGMA integrity_check").fetchone()[0]
    con.close()
    if integrity != "ok":
        raise Failure(f"integrity_check: {integrity}")
    return json.loads(listed.stdout)


def signal_and_wait(child, signo, what="the run did not stop after the signal"):
    """Sends `signo` and waits for the process to end: (stdout, stderr, seconds taken), after
    checking that it exits as the signal would (128 + its number)."""
    t0 = time.monotonic()
    child.send_signal(signo)
    try:
        out, err = child.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        child.kill()
        raise Failure(what)
    took = time.monotonic() - t0
    if child.returncode != 128 + signo:
        raise Failure(f"exit {child.returncode}, expected {128 + signo} (stderr: {err[-400:]})")
    return out, err, took


def clean_stop(cli, folder, signo):
    db = os.path.join(folder, "stop.sqlite")
    child = start_run(cli, db, ["--data", "spirals", "--samples", "50000000"])
    time.sleep(1.5)
    out, err, took = signal_and_wait(child, signo)
    if took > STOP_WITHIN_S:
        raise Failure(f"stopping took {took:.1f} s")
    if "stopping at the next window boundary" not in err:
        raise Failure(f"no stop notice on stderr: {err[-400:]}")
    if "Stored as experiment" not in out:
        raise Failure(f"no summary after the stop: {out[-400:]}")
    runs = stored_runs(cli, db)
    if len(runs) != 3:
        raise Failure(f"expected 3 runs, found {len(runs)}")
    for run in runs:
        if run["status"] != "stopped" or run["steps"] <= 0 or not run["ended_at"]:
            raise Failure(f"run {run['id']} after the stop: {run}")
    show = subprocess.run([cli, "show", str(runs[0]["id"]), "--db", db, "--json"],
                          capture_output=True, text=True)
    if show.returncode != 0 or json.loads(show.stdout)["summary"]["status"] != "stopped":
        raise Failure(f"show after the stop: {show.stdout[:400]} {show.stderr[:400]}")
    return f"stopped and stored in {took:.2f} s, 3/3 runs `stopped`"


def twice(cli, folder):
    db = os.path.join(folder, "twice.sqlite")
    child = start_run(cli, db, SLOW_RUN)
    time.sleep(1.0)
    child.send_signal(signal.SIGINT)
    time.sleep(0.3)
    if child.poll() is not None:
        raise Failure(f"the first SIGINT ended the run before its window did (exit "
                      f"{child.returncode}); the window is too short for this test")
    t0 = time.monotonic()
    child.send_signal(signal.SIGINT)
    try:
        child.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        child.kill()
        raise Failure("the second SIGINT did not end the run")
    took = time.monotonic() - t0
    if child.returncode != 130:
        raise Failure(f"exit {child.returncode} after the second SIGINT, expected 130")
    if took > QUIT_WITHIN_S:
        raise Failure(f"the second SIGINT took {took:.1f} s to end the run")
    runs = stored_runs(cli, db)
    if [r["status"] for r in runs] != ["interrupted"]:
        raise Failure(f"after quitting at once: {[r['status'] for r in runs]}")
    return f"quit {took:.2f} s after the second SIGINT, the run `interrupted` at the next open"


def mid_read(cli, folder):
    db = os.path.join(folder, "read.sqlite")
    big = os.path.join(folder, "big.csv")
    with open(big, "w") as out:
        out.write("a,b,c,y\n")
        block = "".join(f"0.{i:04d},1.25,-3.5,{i % 3}\n" for i in range(10_000))
        for _ in range(BIG_CSV_ROWS // 10_000):
            out.write(block)
    cmd = [cli, "run", "-q", "--threads", "1", "--db", db, "--data", f"csv:{big}",
           "--samples", "64"]
    child = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # The file is open once the read has begun (the stop's handler is in place before that).
    deadline = time.monotonic() + 30
    fds = f"/proc/{child.pid}/fd"
    while True:
        if child.poll() is not None:
            raise Failure(f"the run ended before it read the file (exit {child.returncode}: {child.stderr.read()[-400:]})")
        if time.monotonic() > deadline:
            child.kill()
            raise Failure("the run did not open the CSV within 30 s")
        try:
            if any(os.readlink(os.path.join(fds, fd)) == big for fd in os.listdir(fds)):
                break
        except OSError:
            pass
        time.sleep(0.005)
    time.sleep(0.05)
    _, err, took = signal_and_wait(child, signal.SIGTERM)
    if took > READ_STOP_WITHIN_S:
        raise Failure(f"stopping mid-read took {took:.2f} s")
    if f"stopped while reading {big}; nothing was trained or stored" not in err:
        raise Failure(f"no sentence on stderr: {err[-400:]}")
    runs = stored_runs(cli, db) if os.path.exists(db) else []
    if runs:
        raise Failure(f"{len(runs)} runs stored after a stop mid-read")
    return f"stopped {took:.2f} s after SIGTERM mid-read, nothing stored"


def gui_close(cli, gui, folder):
    db = os.path.join(folder, "gui.sqlite")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=folder,
               XDG_RUNTIME_DIR=folder)
    app = subprocess.Popen([gui, "--fresh", "--db", db, "--run", "--data", "spirals",
                            "--samples", "50000000"], env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while True:
        if app.poll() is not None:
            raise Failure(f"the app ended by itself: {app.stderr.read()[-400:]}")
        if time.monotonic() > deadline:
            app.kill()
            raise Failure("the app stored no steps within 60 s")
        steps = 0
        if os.path.exists(db):
            con = sqlite3.connect(db)
            try:
                steps = con.execute("SELECT count(*) FROM runs WHERE steps > 0").fetchone()[0]
            except sqlite3.Error:
                pass
            con.close()
        if steps == 3:
            break
        time.sleep(0.2)
    _, err, took = signal_and_wait(app, signal.SIGTERM, "the app did not close after SIGTERM")
    runs = stored_runs(cli, db)
    if sorted(r["status"] for r in runs) != ["stopped"] * 3:
        raise Failure(f"after SIGTERM: {[r['status'] for r in runs]}")
    return f"closed {took:.2f} s after SIGTERM, 3/3 runs `stopped`"


def main():
    case, cli = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as folder:
        try:
            if case == "sigint":
                message = clean_stop(cli, folder, signal.SIGINT)
            elif case == "sigterm":
                message = clean_stop(cli, folder, signal.SIGTERM)
            elif case == "twice":
                message = twice(cli, folder)
            elif case == "midread":
                message = mid_read(cli, folder)
            elif case == "gui":
                message = gui_close(cli, sys.argv[3], folder)
            else:
                print(f"unknown case {case}", file=sys.stderr)
                return 2
        except Failure as e:
            print(f"FAIL [{case}]: {e}", file=sys.stderr)
            return 1
    print(f"{case}: {message}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
