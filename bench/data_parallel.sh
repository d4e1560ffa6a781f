#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Data-parallel workers against one process: samples/s of the accum arm with --workers 2
# (1 thread each) and with --workers 1 (1 thread), by default the default MLP at m=32, K=8,
# and the all-reduce time per window (the wait for the other worker included) against the
# window's compute time; medians of REPEATS interleaved runs. Evaluations and probes are off:
# they run on rank 0 only, so they would measure rank 0's extra work, not the training.
# Usage: bench/data_parallel.sh [REPEATS] [MODEL] [M] [K]   (from the repository root, after a
# build; the data is fashion-mnist when its package is installed, else blobs:784)
set -euo pipefail
source "$(dirname "$0")/data_parallel_setup.sh" "$@"
run() {  # workers → "samples/s allreduce_ms_per_window compute_ms_per_window"
  "$cli" run --data "$data" --synthetic-samples 20000 --model "$model" --arms accum -m "$m" -k "$k" --workers "$1" \
    --samples "$samples" --threads 1 --eval-every $((10 * samples)) --probe-repeats 0 \
    --device cpu --json -q --no-store |
    /usr/bin/python3 -c "
import json, math, sys
a = json.load(sys.stdin)['arms']['accum']
reduce = a['allreduce_s'] if a['allreduce_s'] is not None else 0.0
print(round(a['samples_per_s']), 1000 * reduce / a['steps'], 1000 * (a['wall_s'] - reduce) / a['steps'])"
}
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)   $data, $model, m=$m K=$k, $samples samples, $repeats rounds"
one=() two=() reduce=() compute=()
for _ in $(seq "$repeats"); do
  read -r r _ _ <<<"$(run 1)"
  one+=("$r")
  read -r r a c <<<"$(run 2)"
  two+=("$r") reduce+=("$a") compute+=("$c")
done
m1=$(median "${one[@]}") m2=$(median "${two[@]}") ma=$(median "${reduce[@]}") mc=$(median "${compute[@]}")
echo "| workers × threads | accum samples/s (median) | ratio | all-reduce per window | compute per window |"
echo "|---|---|---|---|---|"
echo "| 1 × 1 | $m1 | 1.00× | – | – |"
/usr/bin/python3 -c "print(f'| 2 × 1 | $m2 | {$m2 / $m1:.2f}× | {$ma:.2f} ms | {$mc:.2f} ms |')"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
