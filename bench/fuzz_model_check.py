#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Fuzzes the TorchScript loader through the program a user runs: `accumlab-cli run --model
torchscript:FILE`, where FILE is a seed of tests/fuzz/corpus/torchscript/ with random byte
flips, truncations or overwritten ranges. Every answer must be exit 0 or exit 2 with one line
on stderr; a signal, exit 1 or another code is a crash, and its input is kept.

  bench/fuzz_model_check.py PATH/TO/accumlab-cli SECONDS [OUT_DIR]

Each input runs under `nice -n 10` (the machine is shared); prints the counts of exit codes.
"""
import collections, os, random, shutil, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "tests", "fuzz", "corpus", "torchscript")
# One input's bound: the check's own limit is 30 s, training 64 samples takes well under 30 s.
INPUT_TIMEOUT_S = 90


def mutate(data: bytes, rng: random.Random) -> bytes:
    b = bytearray(data)
    kind = rng.random()
    if kind < 0.6:  # flip a few bytes
        for _ in range(rng.randint(1, 16)):
            b[rng.randrange(len(b))] = rng.randrange(256)
    elif kind < 0.8:  # overwrite a range with one value or random bytes
        start = rng.randrange(len(b))
        n = min(len(b) - start, rng.randint(1, 256))
        fill = bytes([rng.randrange(256)]) * n if rng.random() < 0.5 else os.urandom(n)
        b[start:start + n] = fill
    elif kind < 0.9:  # truncate
        del b[rng.randrange(1, len(b)):]
    else:  # duplicate a range
        start = rng.randrange(len(b))
        n = min(len(b) - start, rng.randint(1, 512))
        at = rng.randrange(len(b))
        b[at:at] = b[start:start + n]
    return bytes(b)


def main() -> int:
    cli, seconds = sys.argv[1], float(sys.argv[2])
    out = sys.argv[3] if len(sys.argv) > 3 else tempfile.mkdtemp(prefix="accumlab-model-fuzz-")
    os.makedirs(out, exist_ok=True)
    seeds = [open(os.path.join(CORPUS, f), "rb").read() for f in sorted(os.listdir(CORPUS))]
    rng = random.Random(int(os.environ.get("SEED", "1")))
    codes, crashes, multi_line = collections.Counter(), 0, 0
    path = os.path.join(out, "input.pt")
    end = time.monotonic() + seconds
    tried = 0
    while time.monotonic() < end:
        with open(path, "wb") as f:
            f.write(mutate(rng.choice(seeds), rng))
        try:
            p = subprocess.run(["nice", "-n", "10", cli, "run", "--data", "blobs:64", "--model",
                                "torchscript:" + path, "--samples", "64", "--no-store", "-q"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               timeout=INPUT_TIMEOUT_S)
            code, err = p.returncode, p.stderr.decode(errors="replace")
        except subprocess.TimeoutExpired:
            code, err = "hang", ""
        tried += 1
        codes[code] += 1
        if code not in (0, 2):
            crashes += 1
            shutil.copy(path, os.path.join(out, "crash-%d.pt" % tried))
            open(os.path.join(out, "crash-%d.txt" % tried), "w").write("%s\n%s" % (code, err))
        elif code == 2 and len(err.strip().splitlines()) != 1:
            multi_line += 1
            shutil.copy(path, os.path.join(out, "multiline-%d.pt" % tried))
    print("inputs tried: %d in %.0f s" % (tried, seconds))
    for code, n in sorted(codes.items(), key=lambda kv: str(kv[0])):
        print("  exit %s: %d" % (code, n))
    print("crashes (signal, exit 1, other codes, hangs): %d" % crashes)
    print("exit 2 with more than one line on stderr: %d" % multi_line)
    print("inputs kept in %s" % out)
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
