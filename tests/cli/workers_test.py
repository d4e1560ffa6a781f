#!/usr/bin/env python3
"""Data-parallel workers through the real program: `accumlab-cli run --workers N`, a worker
killed mid-run, and the rendezvous errors of `--rank/--world-size/--master`.

Cases:
  run         --workers 3 in float64: exit 0, accum equals big-batch to 1e-12, the runs stored
              with their all-reduce times; then --workers 2 in float32: 1e-5
  kill        SIGKILL to worker rank 1 mid-run: rank 0 and rank 2 exit non-zero within the
              timeout, the message names rank 1, the store is intact, accum `failed` with its
              rows, the other arms `stopped`
  hang        SIGSTOP to worker rank 2: the others stop once the timeout passes, naming rank 2,
              and rank 0 ends the hung process
  rendezvous  a port in use, a master nobody runs, mismatched world sizes and configs: one
              sentence each and exit 2

Usage: workers_test.py CASE PATH/TO/accumlab-cli
"""
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time

SMALL = ["--data", "blobs:16", "--synthetic-samples", "1500", "--model", "mlp:32",
         "--micro-batch", "8", "--accum", "4", "--clip-norm", "0.05", "--threads", "1",
         "--window-policy", "flush-exact", "--eval-every", "100000000"]
TIMEOUT_S = 10
# The timeout, the roll call that names the lost rank (3 s) and slack for a loaded machine.
STOP_WITHIN_S = TIMEOUT_S + 3 + 7


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def run_json(cli, args):
    r = subprocess.run([cli, "run", "--json", *args], capture_output=True, text=True, timeout=300)
    check(r.returncode == 0, f"run {args} exited {r.returncode}: {r.stderr.strip()[-600:]}")
    return json.loads(r.stdout)


def case_run(cli, folder):
    db = os.path.join(folder, "w.sqlite")
    out = run_json(cli, ["--workers", "3", "--dtype", "float64", "--epochs", "3", "--db", db, *SMALL])
    accum, big = out["arms"]["accum"], out["arms"]["big-batch"]
    for arm in out["arms"].values():
        check(arm["status"] == "finished", f"arm {arm}")
    check(accum["equivalence_rel_diff"] <= 1e-12, f"float64 equivalence {accum['equivalence_rel_diff']}")
    check(accum["accum"] == 12, f"accum's micro-batches per update: {accum['accum']} (K·N = 12)")
    check(accum["allreduce_s"] > 0, f"all-reduce time {accum['allreduce_s']}")
    con = sqlite3.connect(db)
    check(con.execute("PRAGMA integrity_check").fetchone()[0] == "ok", "integrity")
    rows = con.execute("SELECT COUNT(*), COUNT(s.allreduce_ms) FROM step_metrics s JOIN runs r "
                       "ON s.run_id = r.id WHERE r.arm = 'accum'").fetchone()
    check(rows[0] == accum["steps"] and rows[1] == rows[0], f"accum rows and all-reduce times: {rows}")
    workers = json.loads(con.execute("SELECT config_json FROM runs LIMIT 1").fetchone()[0])["workers"]
    check(workers == 3, f"stored workers {workers}")
    con.close()

    out = run_json(cli, ["--workers", "2", "--epochs", "3", "--no-store", *SMALL])
    diff = out["arms"]["accum"]["equivalence_rel_diff"]
    check(diff <= 1e-5, f"float32 equivalence {diff}")
    print(f"run: float64 3 workers {accum['equivalence_rel_diff']:.2e}, float32 2 workers {diff:.2e}")


def children(pid):
    """pid → command line of the processes whose parent is `pid`."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if ppid == pid:
            found[int(entry)] = cmd
    return found


def start_three(cli, db, timeout_s):
    """rank 0 of a long 3-worker run, well into it, and the pids of ranks 1 and 2."""
    cmd = [cli, "run", "-q", "--workers", "3", "--worker-timeout", str(timeout_s), "--db", db,
           "--samples", "100000000", *SMALL]
    parent = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = parent.stderr.readline()
    if not line.startswith("Storing as"):
        parent.kill()
        raise Failure(f"run did not report its ids: {line!r} {parent.stderr.read()[:400]}")
    time.sleep(2.0)  # well into the run: hundreds of windows
    workers = children(parent.pid)
    rank1 = [pid for pid, c in workers.items() if " --rank 1 " in c]
    rank2 = [pid for pid, c in workers.items() if " --rank 2 " in c]
    if len(rank1) != 1 or len(rank2) != 1:
        parent.kill()
        raise Failure(f"worker processes: {workers}")
    return parent, rank1[0], rank2[0]


def case_hang(cli, folder):
    timeout_s = 5
    parent, _, rank2 = start_three(cli, os.path.join(folder, "hang.sqlite"), timeout_s)
    t0 = time.monotonic()
    os.kill(rank2, signal.SIGSTOP)
    try:
        _, err = parent.communicate(timeout=timeout_s + 3 + 6 + 10)
    except subprocess.TimeoutExpired:
        parent.kill()
        os.kill(rank2, signal.SIGKILL)
        raise Failure("rank 0 still ran long after rank 2 hung")
    took = time.monotonic() - t0
    check(parent.returncode == 1, f"rank 0 exited {parent.returncode}: {err}")
    check(took >= timeout_s - 0.5, f"rank 0 gave up after {took:.1f} s, before the {timeout_s} s timeout")
    check("worker rank 2 stopped responding" in err, f"stderr: {err}")
    check(f"worker rank 2 (pid {rank2}) did not exit in time and was ended" in err, f"stderr: {err}")
    check(not os.path.exists(f"/proc/{rank2}") or open(f"/proc/{rank2}/stat").read().split()[2] == "Z",
          "the hung worker still runs")
    print(f"hang: rank 0 exited {took:.1f} s after rank 2 stopped, naming it")


def case_kill(cli, folder):
    db = os.path.join(folder, "kill.sqlite")
    parent, rank1, _ = start_three(cli, db, TIMEOUT_S)
    t0 = time.monotonic()
    os.kill(rank1, signal.SIGKILL)
    try:
        _, err = parent.communicate(timeout=STOP_WITHIN_S)
    except subprocess.TimeoutExpired:
        parent.kill()
        raise Failure(f"rank 0 still ran {STOP_WITHIN_S} s after rank 1 was killed")
    took = time.monotonic() - t0
    check(parent.returncode == 1, f"rank 0 exited {parent.returncode}: {err}")
    check("worker rank 1 (pid" in err and "killed by signal 9" in err, f"stderr: {err}")
    check("rank 2" in err and "exited with status 1" in err, f"rank 2's exit: {err}")
    listed = subprocess.run([cli, "list", "--db", db, "--json"], capture_output=True, text=True)
    check(listed.returncode == 0, f"list: {listed.stderr}")
    runs = {r["arm"]: r for r in json.loads(listed.stdout)}
    check(runs["accum"]["status"] == "failed", f"accum: {runs['accum']}")
    check(runs["no-accum"]["status"] == "stopped" and runs["big-batch"]["status"] == "stopped",
          f"other arms: {runs}")
    con = sqlite3.connect(db)
    check(con.execute("PRAGMA integrity_check").fetchone()[0] == "ok", "integrity")
    rows = con.execute("SELECT COUNT(*) FROM step_metrics WHERE run_id = ?", (runs["accum"]["id"],)).fetchone()[0]
    message = con.execute("SELECT message FROM events WHERE kind = 'failed'").fetchone()[0]
    con.close()
    check(rows > 10, f"accum kept {rows} rows")
    check(message.startswith("worker rank 1 stopped responding"), f"failed event: {message}")
    print(f"kill: rank 0 exited {took:.1f} s after rank 1 was killed; accum failed with {rows} rows kept")


def one_sentence(result, expected):
    err = result.stderr.strip()
    check(result.returncode == 2, f"exit {result.returncode}, expected 2: {err}")
    check("\n" not in err and expected in err, f"expected one line with {expected!r}: {err!r}")


def rank(cli, r, world, port, *extra, timeout="5"):
    return [cli, "run", "--no-store", "-q", "--rank", str(r), "--world-size", str(world),
            "--master", f"127.0.0.1:{port}", "--worker-timeout", timeout, "--samples", "2000", *extra]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def case_rendezvous(cli, folder):
    with socket.socket() as held:
        held.bind(("0.0.0.0", 0))
        held.listen()
        port = held.getsockname()[1]
        one_sentence(subprocess.run(rank(cli, 0, 2, port), capture_output=True, text=True, timeout=60),
                     f"rank 0 cannot listen on port {port} for the other workers: the port is in use")
    one_sentence(subprocess.run(rank(cli, 1, 2, free_port(), timeout="1"), capture_output=True, text=True,
                                timeout=60), "rank 1 cannot reach rank 0 at 127.0.0.1:")
    for extra, expected in [((), "rank 1 was started for 3 workers and rank 0 for 2"),
                            (("--lr", "0.5"), "rank 1's experiment differs from rank 0's in optimizer.lr")]:
        port = free_port()
        first = subprocess.Popen(rank(cli, 0, 2, port), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(0.5)
        world = 3 if not extra else 2
        second = subprocess.run(rank(cli, 1, world, port, *extra), capture_output=True, text=True, timeout=60)
        out, err = first.communicate(timeout=60)
        one_sentence(second, expected)
        one_sentence(subprocess.CompletedProcess(first.args, first.returncode, out, err), expected)
    print("rendezvous: a port in use, no master, world sizes, configs: one sentence, exit 2")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    case, cli = sys.argv[1], sys.argv[2]
    cases = {"run": case_run, "kill": case_kill, "hang": case_hang, "rendezvous": case_rendezvous}
    with tempfile.TemporaryDirectory() as folder:
        try:
            cases[case](cli, folder)
        except Failure as e:
            print(f"FAIL ({case}): {e}", file=sys.stderr)
            sys.exit(1)


if __name__ == "__main__":
    main()
