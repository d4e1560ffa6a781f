#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Training throughput with the run store on vs --no-store: the same run, alternating, N pairs.
# Usage: bench/store_overhead.sh [PATH/TO/accumlab-cli] [PAIRS] [SAMPLES]
# Prints each pair's samples/s (all arms' samples over the process's wall time) and the
# median ratio store/no-store (the issue asks for >= 0.98).
set -euo pipefail
cli="${1:-build/app/cli/accumlab-cli}"
pairs="${2:-5}"
samples="${3:-60000}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# One arm after another (--arm-threads 1), as the figures in docs/performance.md were taken.
run=(run --data spirals --samples "$samples" --threads 1 -q --json --arm-threads 1)

# Wall-clock samples/s of one run: 3 arms × samples over the process's whole run time.
rate() {
  local t0 t1
  t0=$(date +%s.%N)
  OMP_NUM_THREADS=1 "$cli" "${run[@]}" "$@" >"$tmp/out.json" 2>/dev/null
  t1=$(date +%s.%N)
  /usr/bin/python3 -c "
import json, sys
s = json.load(open('$tmp/out.json'))
total = sum(a['samples_seen'] for a in s['arms'].values())
print(f'{total / ($t1 - $t0):.0f}')"
}

ratios=()
for i in $(seq "$pairs"); do
  # Alternate which goes first so drift on a shared machine does not favour one side.
  if (( i % 2 )); then
    off=$(rate --no-store); on=$(rate --db "$tmp/runs.sqlite")
  else
    on=$(rate --db "$tmp/runs.sqlite"); off=$(rate --no-store)
  fi
  ratio=$(/usr/bin/python3 -c "print(f'{$on / $off:.4f}')")
  ratios+=("$ratio")
  echo "pair $i: store $on samples/s, no-store $off samples/s, ratio $ratio"
done
/usr/bin/python3 -c "
import statistics, sys
r = [float(x) for x in sys.argv[1:]]
print(f'median ratio store/no-store: {statistics.median(r):.4f} (min {min(r):.4f}, max {max(r):.4f}, {len(r)} pairs)')" "${ratios[@]}"
