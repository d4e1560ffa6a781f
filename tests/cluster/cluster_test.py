#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Ranks from real launchers, and where rank 0 listens (docs/clusters.md).

Cases:
  up           start a one-node Slurm cluster in FOLDER (scripts/slurm-local; needs root,
               else skipped with 77)
  down         stop it (scontrol shutdown, then each daemon by its pid file)
  srun         `srun -n 2 accumlab-cli run …` in float64: rank 0's summary equals, to the last
               digit, the same run started with explicit --rank/--world-size/--master and with
               --workers 2; while it trains no socket of the ranks listens beyond loopback
  torchrun     Debian's torchrun (`python3 -m torch.distributed.run --no_python`, the agent's
               store joined, not bound): the same three-way equality
  sweep_array  a 4-point sweep written as an array job (`sweep --slurm --submit`), its tasks
               run by Slurm, collected (`sweep collect`): the same points, fit and B_crit to
               the last digit as the same sweep trained here
  environment  a half-set torchrun or Slurm environment is one sentence and exit 2; a step on
               several nodes meets at its first node (nohost[07-09,11] → nohost07) on the port
               derived from the job and step, or --master-port; explicit options win over a
               launcher's environment; a batch script (no step) is no rank
  listen       --rank 0 with --master 127.0.0.1 listens on loopback only; with --master this
               machine's own address, on that address only, never on every interface

Usage: cluster_test.py CASE PATH/TO/accumlab-cli FOLDER SOURCE_DIR
"""
import glob
import json
import os
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
import workers_test as w  # noqa: E402  (its socket readers and the small run's options)

TOKEN = w.TOKEN
RUN = ["--dtype", "float64", "--epochs", "2", *w.SMALL]
TORCHRUN = ["/usr/bin/python3", "-m", "torch.distributed.run"]
# Fields of an arm's summary that measure time or memory: they differ from run to run.
VARYING = {"allreduce_s", "peak_memory_bytes", "peak_tensor_bytes", "samples_per_s", "tokens_per_s", "gflop_per_s",
           "ceiling_gflop_per_s", "wall_s"}
SKIP = 77


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def env_without_launchers(**extra):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("SLURM_", "TORCHELASTIC_")) and
           k not in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "LOCAL_RANK")}
    env.update(extra)
    return env


def deterministic(summary):
    """Every arm's summary without its times and memory figures."""
    arms = {}
    for name, arm in summary["arms"].items():
        arms[name] = {k: v for k, v in arm.items() if k not in VARYING}
    return arms


def same(a, b, what):
    da, db = deterministic(a), deterministic(b)
    check(da.keys() == db.keys(), f"{what}: arms {sorted(da)} against {sorted(db)}")
    for arm in da:
        for key in da[arm]:
            check(da[arm][key] == db[arm].get(key),
                  f"{what}: {arm}.{key} is {da[arm][key]!r} against {db[arm].get(key)!r}")
    check(da["accum"]["weights_digest"], "no weights digest to compare")


def explicit_ranks(cli, folder):
    """The run with explicit --rank options, and with --workers 2: rank 0's summaries."""
    port = free_port()
    env = env_without_launchers(ACCUMLAB_TOKEN=TOKEN)
    ranks = [subprocess.Popen([cli, "run", "--json", "--no-store", "--rank", str(r), "--world-size", "2",
                               "--master", f"127.0.0.1:{port}", *RUN],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
             for r in (0, 1)]
    outs = [p.communicate(timeout=300) for p in ranks]
    for r, (p, (out, err)) in enumerate(zip(ranks, outs)):
        check(p.returncode == 0, f"explicit rank {r} exited {p.returncode}: {err[-600:]}")
    workers = subprocess.run([cli, "run", "--json", "--no-store", "--workers", "2", *RUN],
                             capture_output=True, text=True, timeout=300, env=env)
    check(workers.returncode == 0, f"--workers 2 exited {workers.returncode}: {workers.stderr[-600:]}")
    return json.loads(outs[0][0]), json.loads(workers.stdout)


def processes_with(marker):
    """Pids of AccumLab's programs whose command line contains `marker` (not the launcher's,
    which listens for its own reasons)."""
    pids = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                words = f.read().split(b"\0")
            if os.path.basename(words[0]).startswith(b"accumlab") and any(marker.encode() in w for w in words):
                pids.append(int(pid))
        except OSError:
            continue
    return pids


def watch_listening(process, marker):
    """Samples, until `process` ends, the listening sockets of the processes whose command line
    holds `marker`: (samples, sockets seen, the set of listening local addresses)."""
    samples, seen, listening = 0, 0, set()
    while process.poll() is None:
        for table, address, state in w.open_sockets(w.sockets_of(processes_with(marker))):
            seen += 1
            if table.startswith("udp") or state == "0A":
                listening.add((table, address))
        samples += 1
        time.sleep(0.05)
    return samples, seen, listening


def case_up(cli, folder, source):
    if os.geteuid() != 0:
        print("skipped: the one-node Slurm cluster runs its daemons as root")
        return SKIP
    start = time.monotonic()
    r = subprocess.run([os.path.join(source, "scripts", "slurm-local"), "up", folder],
                       capture_output=True, text=True, timeout=300)
    check(r.returncode == 0, f"slurm-local up exited {r.returncode}: {r.stderr[-800:]}")
    print(f"up: {r.stdout.strip()} ({time.monotonic() - start:.1f} s)")
    return 0


def case_down(cli, folder, source):
    subprocess.run([os.path.join(source, "scripts", "slurm-local"), "down", folder], timeout=60)
    left = [d for d in ("slurmctld", "slurmd", "munge/munged")
            if os.path.exists(os.path.join(folder, d + ".pid"))]
    check(not left, f"daemons left running: {left}")
    print("down: every daemon stopped")
    return 0


def case_srun(cli, folder, source):
    conf = os.path.join(folder, "slurm.conf")
    if not os.path.exists(conf) or not os.path.exists(os.path.join(folder, "slurmctld.pid")):
        print("skipped: no one-node Slurm cluster (cluster.slurm_up needs root)")
        return SKIP
    with tempfile.TemporaryDirectory() as tmp:
        explicit, workers = explicit_ranks(cli, tmp)
        marker = os.path.join(tmp, "srun-marker.sqlite")
        env = env_without_launchers(ACCUMLAB_TOKEN=TOKEN, SLURM_CONF=conf)
        start = time.monotonic()
        srun = subprocess.Popen(["srun", "-n", "2", "--output", os.path.join(tmp, "out.%t"),
                                 "--error", os.path.join(tmp, "err.%t"), cli, "run", "--json", "--db", marker,
                                 *RUN], env=env, stderr=subprocess.PIPE, text=True)
        samples, seen, listening = watch_listening(srun, marker)
        err = srun.stderr.read()
        took = time.monotonic() - start
        logs = "".join(open(p).read() for p in sorted(glob.glob(os.path.join(tmp, "err.*"))))
        check(srun.returncode == 0, f"srun exited {srun.returncode}: {err[-400:]} {logs[-800:]}")
        launched = json.loads(open(os.path.join(tmp, "out.0")).read())
        same(launched, explicit, "srun against explicit --rank")
        same(launched, workers, "srun against --workers 2")
        check(seen > 0, f"no socket of the ranks seen in {samples} samples")
        exposed = [f"{t} {a}" for t, a in listening if not w.loopback_address(a)]
        check(not exposed, f"ranks under srun listen beyond loopback: {exposed}")
        print(f"srun: 2 tasks in {took:.1f} s, rank 0's summary equals explicit --rank and --workers 2 "
              f"(accum final loss {launched['arms']['accum']['final_train_loss']!r}, digest "
              f"{launched['arms']['accum']['weights_digest']}); listening: {sorted(readable(a) for _, a in listening)}")
    return 0


# The sweep of tests/cli/sweep_cli_test.sh: four effective batches on blobs, each point at most
# 20000 samples, stopped at the target.
SWEEP = ["--data", "blobs", "-m", "8", "-B", "8,16,32,64", "--lr", "0.01", "--lr-scaling", "linear",
         "--samples", "20000", "--probe-repeats", "0", "--target-loss", "0.3"]


def case_sweep_array(cli, folder, source):
    conf = os.path.join(folder, "slurm.conf")
    if not os.path.exists(conf) or not os.path.exists(os.path.join(folder, "slurmctld.pid")):
        print("skipped: no one-node Slurm cluster (cluster.slurm_up needs root)")
        return SKIP
    env = env_without_launchers(SLURM_CONF=conf)
    with tempfile.TemporaryDirectory() as tmp:
        local = subprocess.run([cli, "sweep", *SWEEP, "--db", os.path.join(tmp, "local.sqlite"), "--jobs", "2",
                                "--json", "-q"], env=env, capture_output=True, text=True, timeout=300)
        check(local.returncode == 0, f"the local sweep failed: {local.stderr[-600:]}")
        results = os.path.join(tmp, "results")
        start = time.monotonic()
        submit = subprocess.run([cli, "sweep", *SWEEP, "--db", os.path.join(tmp, "home.sqlite"), "--slurm",
                                 "--results", results, "--submit"], env=env, capture_output=True, text=True,
                                timeout=120)
        check(submit.returncode == 0, f"sweep --slurm --submit failed: {submit.stderr[-600:]}")
        job = submit.stdout.strip()
        check(job.isdigit(), f"sweep --submit printed no job id: {submit.stdout!r}")
        outcomes = [os.path.join(results, f"point-{i}.outcome.json") for i in range(4)]
        deadline = time.monotonic() + 240
        while not all(os.path.exists(o) for o in outcomes) and time.monotonic() < deadline:
            time.sleep(0.5)
        logs = "".join(open(p).read()[-400:] for p in sorted(glob.glob(os.path.join(results, "point-*.log"))))
        check(all(os.path.exists(o) for o in outcomes), f"array job {job} left points without an outcome: {logs}")
        took = time.monotonic() - start
        collect = subprocess.run([cli, "sweep", "collect", results, "--db", os.path.join(tmp, "home.sqlite"),
                                  "--json"], env=env, capture_output=True, text=True, timeout=120)
        check(collect.returncode == 0, f"sweep collect failed: {collect.stderr[-600:]}")
        a, b = json.loads(local.stdout), json.loads(collect.stdout)

        def same_point(p):
            return {k: v for k, v in p.items() if k not in ("run_id", "samples_per_s")}

        check([same_point(p) for p in a["points"]] == [same_point(p) for p in b["points"]],
              f"points differ:\n{a['points']}\n{b['points']}")
        for key in ("fit", "variance_slope", "b_simple"):
            check(a[key] == b[key], f"{key} differs: {a[key]} against {b[key]}")
        fit = a["fit"] or {}
        print(f"sweep_array: job {job}, 4 tasks in {took:.1f} s; local and collected alike: steps to target "
              f"{[p['steps_to_target'] for p in a['points']]}, S_min {fit.get('s_min')!r}, "
              f"E_min {fit.get('e_min')!r}, B_crit {fit.get('b_crit')!r}, B_simple {a['b_simple']!r}")
    return 0


def case_torchrun(cli, folder, source):
    if subprocess.run([*TORCHRUN, "--help"], capture_output=True).returncode != 0:
        print("skipped: no torchrun (python3-torch)")
        return SKIP
    with tempfile.TemporaryDirectory() as tmp:
        explicit, workers = explicit_ranks(cli, tmp)
        logs = os.path.join(tmp, "logs")
        env = env_without_launchers(ACCUMLAB_TOKEN=TOKEN)
        start = time.monotonic()
        # Debian's torchrun is 1.13's: underscore options only; under Python 3.11 it needs
        # -r 2 -t 2 (stderr redirected and shown) to start, and so both ranks' stdout is one:
        # each rank's goes to a file of its own through exec.
        out = os.path.join(tmp, "out")
        r = subprocess.run([*TORCHRUN, "--nproc_per_node", "2", "--master_port", str(free_port()),
                            "-r", "2", "-t", "2", "--log_dir", logs, "--no_python",
                            "/bin/sh", "-c", f'exec "$0" "$@" > {out}.$RANK', cli, "run", "--json",
                            "--no-store", *RUN],
                           capture_output=True, text=True, timeout=300, env=env)
        took = time.monotonic() - start
        check(r.returncode == 0, f"torchrun exited {r.returncode}: {r.stderr[-1500:]}")
        check(os.path.exists(out + ".0"), f"no stdout of rank 0: {r.stderr[-800:]}")
        launched = json.loads(open(out + ".0").read())
        same(launched, explicit, "torchrun against explicit --rank")
        same(launched, workers, "torchrun against --workers 2")
        print(f"torchrun: 2 ranks in {took:.1f} s (the agent's store joined), rank 0's summary equals "
              f"explicit --rank and --workers 2 (digest {launched['arms']['accum']['weights_digest']})")
    return 0


def one_sentence(result, words, what):
    err = result.stderr.strip()
    check(result.returncode == 2, f"{what}: exit {result.returncode}, expected 2: {err[-400:]}")
    check(words in err, f"{what}: expected '{words}' in: {err}")
    check("\n" not in err, f"{what}: not one line: {err}")


def case_environment(cli, folder, source):
    quick = ["run", "-q", "--no-store", "--data", "spirals", "--synthetic-samples", "256", "--samples", "512",
             "--threads", "1", "--eval-every", "100000000"]

    def run(args, **env):
        return subprocess.run([cli, *args], capture_output=True, text=True, timeout=120,
                              env=env_without_launchers(**env))

    one_sentence(run(quick, RANK="1", MASTER_PORT="29400"),
                 "the torchrun environment is half set: RANK and MASTER_PORT are set but WORLD_SIZE and "
                 "MASTER_ADDR are not", "torchrun, half set")
    one_sentence(run(quick, SLURM_PROCID="0", SLURM_STEP_ID="0"),
                 "the Slurm environment is half set: SLURM_PROCID is set but SLURM_NTASKS, SLURM_STEP_NODELIST "
                 "(or SLURM_LAUNCH_NODE_IPADDR) and SLURM_JOB_ID (or --master-port) are not", "Slurm, half set")
    one_sentence(run(quick, RANK="0", WORLD_SIZE="two", MASTER_ADDR="127.0.0.1", MASTER_PORT="1"),
                 "torchrun set WORLD_SIZE='two', which is not a whole number", "torchrun, not a number")
    one_sentence(run([*quick, "--master", "127.0.0.1:29400"]), "add --rank R and --world-size N",
                 "--master without a rank")
    # Several nodes: the master is the step's first node, the port derived from the job and the
    # step (20000 + (42·16 + 3) mod 12000); rank 1 finds nobody there.
    slurm = {"SLURM_PROCID": "1", "SLURM_STEP_ID": "3", "SLURM_NTASKS": "2", "SLURM_STEP_NUM_NODES": "2",
             "SLURM_STEP_NODELIST": "nohost[07-09,11],gpu1", "SLURM_JOB_ID": "42", "ACCUMLAB_TOKEN": TOKEN}
    one_sentence(run([*quick, "--worker-timeout", "1"], **slurm), "rank 1 cannot reach rank 0 at nohost07:20675",
                 "Slurm, several nodes")
    one_sentence(run([*quick, "--worker-timeout", "1", "--master-port", "29999"], **slurm),
                 "rank 1 cannot reach rank 0 at nohost07:29999", "Slurm, --master-port")
    # Explicit options win: --workers 2 beside a launcher's whole environment pointing nowhere.
    dead = {"RANK": "1", "WORLD_SIZE": "2", "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(free_port())}
    r = run([*quick, "--workers", "2"], **dead)
    check(r.returncode == 0, f"--workers 2 under a torchrun environment exited {r.returncode}: {r.stderr[-400:]}")
    # An sbatch script is no rank: SLURM_PROCID and SLURM_NTASKS without a step id.
    r = run(quick, SLURM_PROCID="0", SLURM_NTASKS="2", SLURM_JOB_ID="7", SLURM_NODELIST="n1")
    check(r.returncode == 0, f"a run in a batch script exited {r.returncode}: {r.stderr[-400:]}")
    print("environment: half set torchrun and Slurm, a bad number, --master alone: one sentence, exit 2; "
          "several nodes meet at the first; --workers wins; a batch script is no rank")
    return 0


def own_address():
    """This machine's address towards the outside, or None (no route)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.1", 9))  # TEST-NET-1: nothing is sent
            address = s.getsockname()[0]
            return None if address.startswith("127.") else address
    except OSError:
        return None


def listening_of_rank0(cli, host, tmp):
    port = free_port()
    marker = os.path.join(tmp, f"listen-{host}.sqlite")
    env = env_without_launchers(ACCUMLAB_TOKEN=TOKEN)
    args = ["run", "-q", "--db", marker, "--world-size", "2", "--master", f"{host}:{port}", "--data",
            "spirals", "--synthetic-samples", "512", "--samples", "30000", "--threads", "1",
            "--eval-every", "100000000"]
    rank0 = subprocess.Popen([cli, *args, "--rank", "0"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             text=True, env=env)
    time.sleep(0.3)
    rank1 = subprocess.Popen([cli, *args, "--rank", "1"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             text=True, env=env)
    samples, seen, listening = watch_listening(rank0, marker)
    rank1.communicate(timeout=120)
    err = rank0.stderr.read()
    check(rank0.returncode == 0 and rank1.returncode == 0,
          f"ranks at {host} exited {rank0.returncode}, {rank1.returncode}: {err[-400:]}")
    check(samples >= 3 and seen > 0, f"{samples} samples, {seen} sockets: the run ended too soon")
    return listening


def readable(hex_address):
    raw, port = hex_address.split(":")
    host = bytes.fromhex(raw)
    host = b"".join(host[i:i + 4][::-1] for i in range(0, len(host), 4))
    family = socket.AF_INET if len(host) == 4 else socket.AF_INET6
    return f"{socket.inet_ntop(family, host)} port {int(port, 16)}"


def case_listen(cli, folder, source):
    with tempfile.TemporaryDirectory() as tmp:
        listening = listening_of_rank0(cli, "127.0.0.1", tmp)
        exposed = [readable(a) for t, a in listening if not w.loopback_address(a)]
        check(not exposed, f"rank 0 with --master 127.0.0.1 listens beyond loopback: {exposed}")
        print(f"listen: --master 127.0.0.1: {sorted(readable(a) for _, a in listening)}")
        address = own_address()
        if address is None:
            print("listen: this machine has no address beyond loopback; the second half is left out")
            return 0
        listening = listening_of_rank0(cli, address, tmp)
        mapped = (address, "::ffff:" + address)
        wrong = [readable(a) for _, a in listening if readable(a).split(" port")[0] not in mapped]
        check(not wrong, f"rank 0 with --master {address} listens elsewhere: {wrong}")
        print(f"listen: --master {address}: {sorted(readable(a) for _, a in listening)}")
    return 0


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    case, cli, folder, source = sys.argv[1:]
    cases = {"up": case_up, "down": case_down, "srun": case_srun, "torchrun": case_torchrun,
             "sweep_array": case_sweep_array,
             "environment": case_environment, "listen": case_listen}
    try:
        sys.exit(cases[case](cli, os.path.abspath(folder), source))
    except Failure as e:
        print(f"FAIL ({case}): {e}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
