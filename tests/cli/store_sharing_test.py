#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Sharing test of the run store: the CLI must not break a process that holds the file open.

A holder process (tests/cli/store_holder.cpp) keeps the store open as the desktop app does: a
reading connection plus a StoreSink writer thread with a second one. While it lives, each
`accumlab-cli` command below runs on the same file; after each one the holder must still
write rows that a new process reads, still read through its own connection, hold no
descriptor of a deleted file, and the file must pass PRAGMA integrity_check.

With --case concurrent: the holder writes without pause while two `accumlab-cli run`
processes and a `delete` work on the same file at once; every command must succeed without a
lock error, every run be complete with an id of its own, and no id of a deleted run come back.

Usage: store_sharing_test.py PATH/TO/accumlab-cli PATH/TO/accumlab_store_holder
                             [--case sharing|concurrent] [--rounds N]
Exit 0 when every check passes.
"""
import argparse
import json
import os
import sqlite3
import subprocess
import sys
import tempfile

STEPS_PER_CHECK = 25  # rows the holder writes after each command


class Failure(Exception):
    pass


def cli_ok(cli, *args):
    done = subprocess.run([cli, *args], capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise Failure(f"accumlab-cli {' '.join(args)} exited {done.returncode}: "
                      f"{done.stderr.strip()[:400]}")
    return done.stdout


class Holder:
    def __init__(self, exe, db):
        self.proc = subprocess.Popen([exe, db], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True)
        words = self.reply().split()
        if words[0] != "ready":
            raise Failure(f"holder did not start: {' '.join(words)}")
        self.run_id = int(words[1])
        self.steps = 0

    def reply(self):
        line = self.proc.stdout.readline().strip()
        if not line or line.startswith("error"):
            raise Failure(f"holder failed: {line or 'it exited'}")
        return line

    def ask(self, command):
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        return self.reply().split()

    def write(self, n):
        words = self.ask(f"write {n}")
        self.steps += n
        if words != ["wrote", str(self.steps)]:
            raise Failure(f"holder write: {words}")

    def deleted_fds(self):
        fd_dir = f"/proc/{self.proc.pid}/fd"
        out = []
        for fd in os.listdir(fd_dir):
            try:
                target = os.readlink(os.path.join(fd_dir, fd))
            except OSError:
                continue
            if target.endswith("(deleted)"):
                out.append(target)
        return out

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


def check_shared(cli, db, holder, after):
    """The checks after one CLI command; `after` names the command in failures."""
    holder.write(STEPS_PER_CHECK)
    con = sqlite3.connect(db)
    try:
        seen = con.execute("SELECT count(*) FROM step_metrics WHERE run_id = ?",
                           (holder.run_id,)).fetchone()[0]
        integrity = con.execute("PRAGMA integrity_check").fetchone()[0]
        runs_in_file = con.execute("SELECT count(*) FROM runs").fetchone()[0]
    finally:
        con.close()
    if seen != holder.steps:
        raise Failure(f"after {after}: a new process sees {seen} of the holder's "
                      f"{holder.steps} steps (its writes go where nobody reads them)")
    if integrity != "ok":
        raise Failure(f"after {after}: integrity_check says {integrity}")
    words = holder.ask("read")
    if words != ["read", str(runs_in_file), str(holder.steps)]:
        raise Failure(f"after {after}: the holder reads {words[1:]}, the file holds "
                      f"{runs_in_file} runs and {holder.steps} steps")
    deleted = holder.deleted_fds()
    if deleted:
        raise Failure(f"after {after}: the holder has descriptors of deleted files: {deleted}")
    for suffix in ("-wal", "-shm"):
        if not os.path.exists(db + suffix):
            raise Failure(f"after {after}: {os.path.basename(db)}{suffix} is gone while the "
                          "holder uses it")


def one_round(cli, holder_exe, folder, index):
    db = os.path.join(folder, f"shared{index}.sqlite")
    cli_ok(cli, "run", "--samples", "1024", "-q", "--threads", "1", "--db", db)
    first = json.loads(cli_ok(cli, "list", "--db", db, "--json"))[-1]["id"]
    holder = Holder(holder_exe, db)
    try:
        holder.write(STEPS_PER_CHECK)
        commands = [
            ["list", "--db", db],
            ["list", "--db", db, "--json"],
            ["show", str(first), "--db", db],
            ["show", str(holder.run_id), "--db", db, "--json"],
            ["export", str(first), "--db", db, "--out", os.path.join(folder, "x.csv")],
            ["export", str(first), "--db", db, "--format", "json",
             "--out", os.path.join(folder, "x.json")],
            ["tag", str(first), "shared", "--db", db],
            ["note", str(first), "written while the holder ran", "--db", db],
            ["run", "--samples", "1024", "-q", "--threads", "1", "--db", db],
        ]
        for args in commands:
            cli_ok(cli, *args)
            check_shared(cli, db, holder, f"accumlab-cli {args[0]}")
        if holder.ask("end") != ["ended"]:
            raise Failure("holder did not end cleanly")
        holder.proc.wait(timeout=30)
    finally:
        holder.close()

    runs = {r["id"]: r for r in json.loads(cli_ok(cli, "list", "--db", db, "--json"))}
    mine = runs.get(holder.run_id)
    if not mine or mine["status"] != "finished" or mine["steps"] != holder.steps:
        raise Failure(f"the holder's run after it ended: {mine}")
    if len(runs) != 3 + 1 + 3:
        raise Failure(f"expected 7 runs, found {sorted(runs)}")
    con = sqlite3.connect(db)
    integrity = con.execute("PRAGMA integrity_check").fetchone()[0]
    con.close()
    if integrity != "ok":
        raise Failure(f"integrity_check at the end: {integrity}")


def concurrent_round(cli, holder_exe, folder, index):
    db = os.path.join(folder, f"concurrent{index}.sqlite")
    cli_ok(cli, "run", "--samples", "1024", "-q", "--threads", "1", "--db", db)
    cli_ok(cli, "run", "--samples", "1024", "--arms", "accum", "-q", "--threads", "1",
           "--db", db)
    ids = sorted(r["id"] for r in json.loads(cli_ok(cli, "list", "--db", db, "--json")))
    newest = ids[-1]
    cli_ok(cli, "delete", str(newest), "--yes", "--db", db)
    deleted = {newest}
    holder = Holder(holder_exe, db)
    try:
        if holder.run_id in deleted:
            raise Failure(f"the holder's new run got the deleted id {holder.run_id}")
        runs = [subprocess.Popen([cli, "run", "--samples", "32768", "--threads", "1", "-q",
                                  "--json", "--seed", str(seed), "--db", db],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                for seed in (1, 2)]
        first_three = [str(i) for i in ids[:3]]
        deleter = subprocess.Popen([cli, "delete", *first_three, "--yes", "--db", db],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deleted.update(ids[:3])
        while any(p.poll() is None for p in runs + [deleter]):
            holder.write(STEPS_PER_CHECK)
        stored = []
        for p in runs + [deleter]:
            out, err = p.communicate()
            if p.returncode != 0 or "locked" in err:
                raise Failure(f"{' '.join(p.args[1:3])} exited {p.returncode}: {err.strip()[:400]}")
            if p in runs:
                summary = json.loads(out)
                stored.extend(summary["store"]["run_ids"].values())
        if holder.ask("end") != ["ended"]:
            raise Failure("holder did not end cleanly")
        holder.proc.wait(timeout=30)
    finally:
        holder.close()

    all_new = stored + [holder.run_id]
    if len(set(all_new)) != len(all_new) or deleted & set(all_new):
        raise Failure(f"new run ids {all_new} repeat or reuse a deleted id of {sorted(deleted)}")
    listed = {r["id"]: r for r in json.loads(cli_ok(cli, "list", "--db", db, "--json"))}
    if sorted(listed) != sorted(all_new):
        raise Failure(f"the file holds runs {sorted(listed)}, expected {sorted(all_new)}")
    for run_id in stored:
        r = listed[run_id]
        if r["status"] != "finished" or r["samples_seen"] != 32768:
            raise Failure(f"run {run_id} is incomplete: {r}")
    if listed[holder.run_id]["steps"] != holder.steps:
        raise Failure(f"the holder wrote {holder.steps} steps, the file has "
                      f"{listed[holder.run_id]['steps']}")
    con = sqlite3.connect(db)
    integrity = con.execute("PRAGMA integrity_check").fetchone()[0]
    con.close()
    if integrity != "ok":
        raise Failure(f"integrity_check at the end: {integrity}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("cli")
    parser.add_argument("holder")
    parser.add_argument("--case", choices=["sharing", "concurrent"], default="sharing")
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    round_of = one_round if args.case == "sharing" else concurrent_round
    with tempfile.TemporaryDirectory() as folder:
        for i in range(args.rounds):
            try:
                round_of(args.cli, args.holder, folder, i)
            except Failure as e:
                print(f"FAIL round {i + 1}/{args.rounds}: {e}", file=sys.stderr)
                return 1
    if args.case == "sharing":
        print(f"{args.rounds} round(s): after list, show, export, tag, note and run the holder "
              "still writes and reads, holds no deleted file, and integrity_check is ok")
    else:
        print(f"{args.rounds} round(s): two runs, a delete and the holder at once: all complete, "
              "ids unique and never reused, integrity_check ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
