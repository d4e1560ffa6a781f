#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# What the gradient check costs a data-parallel run: accum alone on --workers 2 (1 thread
# each) checking every window (--grad-check-every 1) against no check (0), interleaved,
# medians of REPEATS; the difference of the wall times over the checks is the cost of one
# check, and a run with the default (every 10th window and every irregular one) counts how
# many it makes. The check runs on rank 0 between the all-reduce and the step while the other
# rank trains its next share and then waits in the next all-reduce, so the whole process's
# wall time shows what it costs everyone. Checking every window makes the cost stand out of
# a shared machine's noise.
# Usage: bench/data_parallel_check.sh [REPEATS] [MODEL] [M] [K]   (from the repository root,
# after a build; the data is fashion-mnist when its package is installed, else blobs:784)
set -euo pipefail
source "$(dirname "$0")/data_parallel_setup.sh" "$@"
run() {  # --grad-check-every → "wall_s checks"
  local t0 t1 out
  t0=$(date +%s.%N)
  out=$("$cli" run --data "$data" --synthetic-samples 20000 --model "$model" --arms accum -m "$m" -k "$k" \
    --workers 2 --samples "$samples" --threads 1 --eval-every $((10 * samples)) --probe-repeats 0 \
    --grad-check-every "$1" --device cpu --json -q --no-store)
  t1=$(date +%s.%N)
  /usr/bin/python3 -c "
import json, sys
a = json.loads(sys.argv[1])['arms']['accum']
print($t1 - $t0, a['grad_equivalence_checks'], a['steps'])" "$out"
}
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)   $data, $model, m=$m K=$k, 2 workers, $samples samples, $repeats rounds"
with=() without=() checks=0 steps=0
for i in $(seq "$repeats"); do
  # Alternate which goes first, so that drift on a shared machine favours neither.
  # (An assignment first, so that a failed run stops the script under set -e.)
  if (( i % 2 )); then
    a=$(run 1); b=$(run 0)
  else
    b=$(run 0); a=$(run 1)
  fi
  read -r w checks steps <<<"$a"
  read -r o _ _ <<<"$b"
  with+=("$w") without+=("$o")
done
d=$(run 10)
read -r _ default _ <<<"$d"
mw=$(median "${with[@]}") mo=$(median "${without[@]}")
/usr/bin/python3 -c "
w, o, c, s, d = $mw, $mo, $checks, $steps, $default
per = (w - o) / c
print(f'{s} updates: wall {w:.2f} s checking each, {o:.2f} s checking none (medians), '
      f'{1000 * per:.2f} ms per check; the default makes {d} checks: '
      f'{1000 * per * d:.0f} ms, {100 * per * d / o:.1f}% of the run')"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
