#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Mutation fuzzer of the TorchScript model check, run as the app runs it: each input is a
seed archive of tests/fuzz/corpus/torchscript/ re-zipped with one to three mutations (a tensor
record cut, grown or changed, the pickle's or the code's bytes changed, an entry dropped, raw
bytes of the zip changed) and checked by `accumlab-engine check-model FILE SAMPLE` in a process
of its own, within the check's limits (2 GiB of resident anonymous memory, 30 s). Meant for the
sanitizer build's engine (scripts/test --sanitize builds build-asan/).

    /usr/bin/python3 tests/fuzz/fuzz_model_check.py ENGINE SECONDS OUT_DIR [JOBS]

Prints the counts: inputs, accepted (exit 0), refused (exit 2), out of memory (exit 3 or
stopped at 2 GiB; under ASan also an allocation its allocator cannot serve, which ends the
process where an uninstrumented build throws bad_alloc), out of time, crashes (a signal:
LibTorch's loader crashing inside the child, which the parent turns into one sentence) and
sanitizer reports (findings). Every input that
crashed or made a sanitizer report is kept in OUT_DIR with its stderr. Exits 1 when there was a
sanitizer report or an exit code the check does not give.
"""
import collections
import concurrent.futures
import io
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(ROOT, "tests", "fuzz", "corpus", "torchscript")
# Each seed's input features, for the forward pass of the check.
SAMPLES = {"linear.pt": "float:4", "batchnorm-dropout.pt": "float:3"}
MEMORY_BYTES = 2 << 30  # the check's bound (core/include/accumlab/torchscript_check.h)
TIMEOUT_S = 30
RECORD = re.compile(r"/data/\d+$")
SANITIZER = re.compile(r"ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:")
# ASan's allocator ends the process on an allocation it cannot serve (a throwing operator new
# never returns null there), where an uninstrumented build throws bad_alloc and the check
# exits 3: out of memory, not a memory error.
SANITIZER_OUT_OF_MEMORY = re.compile(
    r"ERROR: AddressSanitizer: (allocator is out of memory|requested allocation size)")


def resident_anonymous(pid):
    total = 0
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(("RssAnon:", "RssShmem:")):
                    total += int(line.split()[1]) * 1024
    except OSError:
        pass
    return total


def mutate_bytes(rng, data):
    data = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        kind = rng.randrange(4)
        if kind == 0 and data:
            data[rng.randrange(len(data))] = rng.randrange(256)
        elif kind == 1:
            data[rng.randrange(len(data) + 1):0] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        elif kind == 2 and data:
            i = rng.randrange(len(data))
            del data[i:i + rng.randint(1, 8)]
        elif kind == 3:
            # A number in text or pickle: digits changed to a large or a small value.
            m = list(re.finditer(rb"\d+", bytes(data)))
            if m:
                d = rng.choice(m)
                data[d.start():d.end()] = str(rng.choice([0, 1, 2, 7, 255, 65536, 2**31, 2**63 - 1])).encode()
    return bytes(data)


def mutant(rng, seed_bytes):
    """One mutated archive from a seed: entries changed, dropped or the raw zip changed."""
    with zipfile.ZipFile(io.BytesIO(seed_bytes)) as z:
        entries = [(info, z.read(info.filename)) for info in z.infolist()]
    for _ in range(rng.randint(1, 3)):
        what = rng.randrange(7)
        records = [i for i, (info, _) in enumerate(entries) if RECORD.search(info.filename)]
        pick = rng.choice(records) if records and what < 3 else rng.randrange(len(entries))
        info, data = entries[pick]
        if what == 0:
            data = data[: rng.randrange(len(data) + 1)]  # cut
        elif what == 1:
            data = data + bytes(rng.randrange(256) for _ in range(rng.randint(1, 64)))  # grown
        elif what in (2, 3, 4):
            if what == 3:
                pkl = [i for i, (inf, _) in enumerate(entries) if inf.filename.endswith(".pkl")]
                pick = rng.choice(pkl) if pkl else pick
                info, data = entries[pick]
            data = mutate_bytes(rng, data)
        elif what == 5 and len(entries) > 1:
            del entries[pick]
            continue
        entries[pick] = (info, data)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for info, data in entries:
            z.writestr(info, data)
    raw = out.getvalue()
    if rng.random() < 0.1:
        raw = mutate_bytes(rng, raw)
    return raw


def check(engine, path, sample):
    """Runs the check on one file: (verdict, stderr)."""
    proc = subprocess.Popen([engine, "check-model", path, sample], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    start = time.monotonic()
    err = b""
    verdict = None
    while proc.poll() is None:
        if time.monotonic() - start > TIMEOUT_S:
            verdict = "timeout"
        elif resident_anonymous(proc.pid) > MEMORY_BYTES:
            verdict = "out of memory"
        if verdict:
            proc.kill()
            break
        time.sleep(0.005)
    err = proc.communicate()[1].decode(errors="replace")
    if SANITIZER_OUT_OF_MEMORY.search(err):
        return "out of memory (ASan's allocator)", err
    if SANITIZER.search(err):
        return "sanitizer report", err
    if verdict:
        return verdict, err
    rc = proc.returncode
    if rc < 0:
        return f"crash (signal {-rc})", err
    return {0: "accepted", 2: "refused", 3: "out of memory"}.get(rc, f"exit {rc}"), err


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    engine, seconds, out = sys.argv[1], float(sys.argv[2]), sys.argv[3]
    jobs = int(sys.argv[4]) if len(sys.argv) > 4 else 2
    os.makedirs(out, exist_ok=True)
    seeds = {name: open(os.path.join(CORPUS, name), "rb").read() for name in SAMPLES}
    counts = collections.Counter()
    rng = random.Random(int(os.environ.get("FUZZ_SEED", "1")))
    work = tempfile.mkdtemp(prefix="model-check-fuzz-")
    deadline = time.monotonic() + seconds
    n = 0

    def one(i, name, data):
        path = os.path.join(work, f"input-{i}.pt")
        with open(path, "wb") as f:
            f.write(data)
        verdict, err = check(engine, path, SAMPLES[name])
        os.unlink(path)
        return i, name, data, verdict, err

    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        running = set()
        while time.monotonic() < deadline or running:
            while time.monotonic() < deadline and len(running) < jobs:
                name = rng.choice(sorted(seeds))
                running.add(pool.submit(one, n, name, mutant(rng, seeds[name])))
                n += 1
            done, running = concurrent.futures.wait(running, return_when="FIRST_COMPLETED")
            for d in done:
                i, name, data, verdict, err = d.result()
                counts[verdict] += 1
                if verdict.startswith(("crash", "sanitizer", "exit")):
                    base = os.path.join(out, f"{verdict.split()[0]}-{i}-{name}")
                    with open(base, "wb") as f:
                        f.write(data)
                    with open(base + ".stderr", "w") as f:
                        f.write(err)
    os.rmdir(work)
    print(f"inputs {sum(counts.values())} in {seconds:.0f} s with {jobs} jobs")
    for verdict, c in sorted(counts.items()):
        print(f"  {verdict}: {c}")
    bad = sum(c for v, c in counts.items() if v.startswith(("sanitizer", "exit")))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
