#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The engine against the plainest LibTorch C++ loop (bench/bare_loop.cpp): samples/s of one
# arm, MLP 784-256-10, 1 thread, noise statistics off and on; medians of REPEATS interleaved
# rounds (the ratios: medians of each round's own ratio). The bare loop runs twice: as
# written, and with the engine's malloc settings (freed memory kept for reuse), which compares
# the loops alone; the ratios are against both.
# Each run trains 4 epochs of 18,000 training rows (the engine's 90% of 20,000; the bare loop
# is given as many): on a machine measured here, the first epoch after the engine's dataset
# split (which frees the larger generated set) read rows up to 8× slower, erratically, and a
# run of one epoch measured mostly that.
# Usage: bench/compare_bare.sh [REPEATS]   (from the repository root, after a build)
# Run from a shell: started from a Python process, the bare loop measured up to 3× slower
# on this machine (cause not found), while the engine did not.
set -euo pipefail
repeats="${1:-5}"
cli=build/app/cli/accumlab-cli
bare=build/bench/bare_loop
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
rate() { /usr/bin/python3 -c "import json,sys; d=json.load(sys.stdin); print(round(d['arms']['$1']['samples_per_s'] if '$1' else d['samples_per_s']))"; }
engine() {  # m k samples [--no-noise-stats]
  local arm=no-accum
  [ "$2" -gt 1 ] && arm=accum
  "$cli" run --data blobs:784 --synthetic-samples 20000 --model mlp:256 --arms "$arm" -m "$1" \
    -k "$2" --samples "$3" --threads 1 --eval-every $((10 * $3)) --device cpu --json -q \
    --no-store ${4:-} | rate "$arm"
}
median() { printf '%s\n' "$@" | sort -n | sed -n "$(( ($# + 1) / 2 ))p"; }
echo "| m | K | bare C++ | bare, engine's malloc | engine, noise off | engine, noise on | off/bare | on/bare | off/bare' | on/bare' |"
echo "|---|---|---|---|---|---|---|---|---|---|"
# CONFIGS="m K samples;…" picks other rows.
IFS=';' read -r -a configs <<< "${CONFIGS:-8 1 72000;8 8 72000;32 1 144000;32 8 144000}"
for cfg in "${configs[@]}"; do
  set -- $cfg
  b=() bk=() off=() on=()
  for _ in $(seq "$repeats"); do
    b+=("$("$bare" --micro-batch "$1" --accum "$2" --samples "$3" --train-size 18000 --threads 1 | rate "")")
    bk+=("$("$bare" --micro-batch "$1" --accum "$2" --samples "$3" --train-size 18000 --threads 1 --keep-freed 1 | rate "")")
    off+=("$(engine "$1" "$2" "$3" --no-noise-stats)")
    on+=("$(engine "$1" "$2" "$3")")
  done
  echo "m=$1 K=$2: bare ${b[*]} | bare' ${bk[*]} | off ${off[*]} | on ${on[*]}" >&2  # every run
  # Ratios are medians of each round's own ratio: a round runs the four back to back, and
  # this machine switched between a slow and a fast state (18k and 26k samples/s at m = 8 for
  # every program alike) for minutes at a time, so a ratio of medians mixed the two states.
  /usr/bin/python3 - "$1" "$2" "${b[*]}" "${bk[*]}" "${off[*]}" "${on[*]}" <<'PY'
import statistics as st, sys
m, k, *runs = sys.argv[1:]
b, bk, off, on = ([float(x) for x in r.split()] for r in runs)
ratio = lambda x, y: st.median(p / q for p, q in zip(x, y))
cells = [f"{st.median(r):.0f}" for r in (b, bk, off, on)]
cells += [f"{ratio(x, y):.2f}×" for x, y in ((off, b), (on, b), (off, bk), (on, bk))]
print(f"| {m} | {k} | " + " | ".join(cells) + " |")
PY
done
