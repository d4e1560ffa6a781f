#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Data-parallel workers through the real program: `accumlab-cli run --workers N`, a worker
killed mid-run, the rendezvous errors of `--rank/--world-size/--master`, what the ranks open
to the network, and the shared token of ranks on several machines.

Cases:
  text        --workers 2 on a text file in float64: accum equals big-batch to 1e-12 (tokens
              counted over all ranks), and so does every gradient check
  run         --workers 3 in float64: exit 0, accum equals big-batch to 1e-12, the runs stored
              with their all-reduce times and rank 0's gradient checks of the whole window
              (every 10th and every short one, each <= 1e-12); then --workers 2 in float32:
              1e-5, the gradient checks too
  kill        SIGKILL to worker rank 1 mid-run: rank 0 and rank 2 exit non-zero within the
              timeout, the message names rank 1, the store is intact, accum `failed` with its
              rows, the other arms `stopped`
  hang        SIGSTOP to worker rank 2: the others stop once the timeout passes, naming rank 2,
              and rank 0 ends the hung process
  rendezvous  a port in use, a master nobody runs, mismatched world sizes and configs: one
              sentence each and exit 2
  loopback    --workers 2: sampled during the run, no socket of its processes listens (TCP) or
              is bound (UDP) on an address beyond loopback; the private folder goes with it
  token       --rank/--world-size/--master: without a token, exit 2; rank 1 with another token,
              both ranks exit 2 with one sentence each; with the same token (file and
              ACCUMLAB_TOKEN) the run completes, and no output shows the token

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
# A sanitizer build runs slower (tests/sanitize/env.sh): its timeouts get an allowance.
TIME_SCALE = float(os.environ.get("ACCUMLAB_TEST_TIME_SCALE", "1"))
TIMEOUT_S = round(10 * TIME_SCALE)
# The shared token of the runs that meet at --master (ranks on several machines).
TOKEN = "5f1c0e7a9b2d4c68a1e3f5b7d9c2e4a6"
TOKEN_ADVICE = "set the same --token-file or ACCUMLAB_TOKEN on every rank"
# The timeout, the roll call that names the lost rank (3 s), the 10 s the other workers have
# to exit (core/process/local_workers.cpp) and slack for a loaded machine.
STOP_WITHIN_S = TIMEOUT_S + 3 + 10 + 5


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
    check_grad_checks(accum, 1e-12, "float64 3 workers")
    con = sqlite3.connect(db)
    check(con.execute("PRAGMA integrity_check").fetchone()[0] == "ok", "integrity")
    rows = con.execute("SELECT COUNT(*), COUNT(s.allreduce_ms) FROM step_metrics s JOIN runs r "
                       "ON s.run_id = r.id WHERE r.arm = 'accum'").fetchone()
    check(rows[0] == accum["steps"] and rows[1] == rows[0], f"accum rows and all-reduce times: {rows}")
    stored = con.execute("SELECT COUNT(s.grad_equiv), MAX(s.grad_equiv) FROM step_metrics s JOIN runs r "
                         "ON s.run_id = r.id WHERE r.arm = 'accum'").fetchone()
    check(stored[0] == accum["grad_equivalence_checks"] and stored[1] <= 1e-12,
          f"stored gradient checks {stored} against the summary's {accum['grad_equivalence_checks']}")
    workers = json.loads(con.execute("SELECT config_json FROM runs LIMIT 1").fetchone()[0])["workers"]
    check(workers == 3, f"stored workers {workers}")
    con.close()

    out = run_json(cli, ["--workers", "2", "--epochs", "3", "--no-store", *SMALL])
    diff = out["arms"]["accum"]["equivalence_rel_diff"]
    check(diff <= 1e-5, f"float32 equivalence {diff}")
    check_grad_checks(out["arms"]["accum"], 1e-5, "float32 2 workers")
    print(f"run: float64 3 workers {accum['equivalence_rel_diff']:.2e}, float32 2 workers {diff:.2e}; "
          f"gradient checks {accum['grad_equivalence_checks']} up to {accum['grad_equivalence_rel_diff']:.2e}, "
          f"{out['arms']['accum']['grad_equivalence_checks']} up to "
          f"{out['arms']['accum']['grad_equivalence_rel_diff']:.2e}")


def check_grad_checks(accum, tolerance, what):
    """Rank 0 checked the all-reduced window against its samples as one batch: every 10th
    update and every irregular window (one short window per epoch under flush-exact)."""
    checks = accum["grad_equivalence_checks"]
    check(checks >= accum["steps"] // 10, f"{what}: {checks} gradient checks in {accum['steps']} updates")
    check(accum["grad_equivalence_uneven_checks"] >= 1, f"{what}: no short window was checked")
    # A float32 check above 1e-5 that its float64 repeat finds exact is a kink, not a fault.
    largest = accum["grad_equivalence_rel_diff" if tolerance < 1e-9 else
                    "grad_equivalence_rel_diff_without_kinks"]
    check(largest <= tolerance, f"{what}: gradient check {largest} above {tolerance}")


def case_text(cli, folder):
    # Sequences of 1 to 60 bytes: each rank's shard holds other token counts, so the window's
    # tokens must be counted over all ranks before the first backward.
    text = os.path.join(folder, "lines.txt")
    with open(text, "w") as f:
        for i in range(480):
            f.write(" ".join("word"[: 1 + (i + w) % 4] for w in range(1 + (i * 7) % 12)) + "\n")
    out = run_json(cli, ["--workers", "2", "--dtype", "float64", "--no-store", "--data", "text:" + text,
                         "--model", "charlm:8", "--micro-batch", "4", "--accum", "4", "--epochs", "1",
                         "--threads", "1", "--window-policy", "flush-exact",
                         "--arms", "accum,big-batch"])
    accum = out["arms"]["accum"]
    for arm in out["arms"].values():
        check(arm["status"] == "finished", f"arm {arm}")
    check(accum["equivalence_rel_diff"] <= 1e-12, f"float64 text equivalence {accum['equivalence_rel_diff']}")
    check(accum["tokens_per_s"] > 0, f"tokens/s {accum.get('tokens_per_s')}")
    check_grad_checks(accum, 1e-12, "float64 text")
    print(f"text: float64 2 workers {accum['equivalence_rel_diff']:.2e}; gradient checks "
          f"{accum['grad_equivalence_checks']} up to {accum['grad_equivalence_rel_diff']:.2e}")


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
    time.sleep(1.0)  # well into the run: hundreds of windows
    workers = children(parent.pid)
    rank1 = [pid for pid, c in workers.items() if " --rank 1 " in c]
    rank2 = [pid for pid, c in workers.items() if " --rank 2 " in c]
    if len(rank1) != 1 or len(rank2) != 1:
        parent.kill()
        raise Failure(f"worker processes: {workers}")
    return parent, rank1[0], rank2[0]


def case_hang(cli, folder):
    # The shortest that a loaded machine's slow window does not reach.
    timeout_s = round(3 * TIME_SCALE)
    parent, _, rank2 = start_three(cli, os.path.join(folder, "hang.sqlite"), timeout_s)
    t0 = time.monotonic()
    os.kill(rank2, signal.SIGSTOP)
    try:
        _, err = parent.communicate(timeout=timeout_s + 3 + 10 + 10)
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
    os.environ["ACCUMLAB_TOKEN"] = TOKEN  # every rank here knows the token
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

def loopback_address(hex_address):
    """Whether a /proc/net/tcp{,6} or udp{,6} local address ("0100007F:1F90") is loopback."""
    host = bytes.fromhex(hex_address.split(":")[0])
    # The kernel prints each 32-bit word of the address in host (little-endian) order.
    host = b"".join(host[i:i + 4][::-1] for i in range(0, len(host), 4))
    if len(host) == 4:
        return host[0] == 127
    if host == bytes(15) + b"\x01":  # ::1
        return True
    return host[:12] == bytes(10) + b"\xff\xff" and host[12] == 127  # ::ffff:127.x.x.x


def sockets_of(pids):
    """Socket inodes of the processes `pids`."""
    inodes = set()
    for pid in pids:
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                try:
                    target = os.readlink(f"/proc/{pid}/fd/{fd}")
                except OSError:
                    continue
                if target.startswith("socket:["):
                    inodes.add(target[8:-1])
        except OSError:
            continue
    return inodes


def open_sockets(inodes):
    """(table, local address, state) of each socket in `inodes`, from /proc/net."""
    found = []
    for table in ("tcp", "tcp6", "udp", "udp6"):
        with open(f"/proc/net/{table}") as f:
            for line in f.readlines()[1:]:
                fields = line.split()
                if fields[9] in inodes:
                    found.append((table, fields[1], fields[3]))
    return found


def case_loopback(cli, folder):
    tmp = os.path.join(folder, "tmp")
    os.mkdir(tmp)
    cmd = [cli, "run", "-q", "--no-store", "--workers", "2", "--data", "spirals", "--synthetic-samples",
           "512", "--samples", "40000", "--threads", "1", "--eval-every", "100000000"]
    parent = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                              env={**os.environ, "TMPDIR": tmp})
    samples, seen, exposed, rank1_seen = 0, 0, [], False
    while parent.poll() is None:
        ranks = [parent.pid, *children(parent.pid)]
        rank1_seen = rank1_seen or len(ranks) > 1
        for table, address, state in open_sockets(sockets_of(ranks)):
            seen += 1
            listening = table.startswith("udp") or state == "0A"  # TCP_LISTEN
            if listening and not loopback_address(address):
                exposed.append(f"{table} {address} state {state}")
        samples += 1
        time.sleep(0.1)
    err = parent.stderr.read()
    check(parent.returncode == 0, f"run exited {parent.returncode}: {err[-600:]}")
    check(rank1_seen and samples >= 5, f"{samples} samples, rank 1 seen: {rank1_seen}; the run ended too soon")
    check(seen > 0, "no socket of the ranks was seen: the check cannot see them")
    check(not exposed, f"sockets open beyond loopback: {sorted(set(exposed))}")
    check(os.listdir(tmp) == [], f"left in TMPDIR: {os.listdir(tmp)}")
    print(f"loopback: {samples} samples, {seen} sockets of the ranks, none beyond loopback")


def case_token(cli, folder):
    env = {k: v for k, v in os.environ.items() if k != "ACCUMLAB_TOKEN"}
    token_file = os.path.join(folder, "token")
    with open(os.open(token_file, os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
        f.write(TOKEN + "\n")
    one_sentence(subprocess.run(rank(cli, 0, 2, free_port()), capture_output=True, text=True, timeout=60, env=env),
                 "a run on several machines needs a shared token")

    def pair(token0, token1_args, *extra):
        port = free_port()
        first = subprocess.Popen(rank(cli, 0, 2, port, *extra), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True, env={**env, "ACCUMLAB_TOKEN": token0})
        time.sleep(0.5)
        second = subprocess.run(rank(cli, 1, 2, port, *token1_args, *extra), capture_output=True, text=True,
                                timeout=120, env=env)
        out, err = first.communicate(timeout=120)
        return port, subprocess.CompletedProcess(first.args, first.returncode, out, err), second

    port, first, second = pair(TOKEN, ["--token", "another token, long enough"])
    one_sentence(second, f"rank 1 was refused by the master at 127.0.0.1:{port}: its token does not match "
                         f"({TOKEN_ADVICE})")
    one_sentence(first, f"rank 1 presented a token that does not match rank 0's; {TOKEN_ADVICE}")

    _, first, second = pair(TOKEN, ["--token-file", token_file], "--json")
    check(first.returncode == 0, f"rank 0 exited {first.returncode}: {first.stderr}")
    check(second.returncode == 0, f"rank 1 exited {second.returncode}: {second.stderr}")
    accum = json.loads(first.stdout)["arms"]["accum"]
    check(accum["status"] == "finished", f"accum: {accum}")
    check(json.loads(second.stdout)["arms"]["accum"]["weights_digest"] == accum["weights_digest"],
          "the ranks end with different weights")
    for text in (first.stdout, first.stderr, second.stdout, second.stderr):
        check(TOKEN not in text, "an output shows the token")
    print("token: none, another and the same token: refused, refused on both sides, trained")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    case, cli = sys.argv[1], sys.argv[2]
    cases = {"run": case_run, "kill": case_kill, "hang": case_hang, "rendezvous": case_rendezvous,
             "loopback": case_loopback, "token": case_token, "text": case_text}
    with tempfile.TemporaryDirectory() as folder:
        try:
            cases[case](cli, folder)
        except Failure as e:
            print(f"FAIL ({case}): {e}", file=sys.stderr)
            sys.exit(1)


if __name__ == "__main__":
    main()
