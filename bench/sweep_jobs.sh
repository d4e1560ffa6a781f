#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Wall time of a 12-point Fashion-MNIST MLP sweep with --jobs 2 against --jobs 1, interleaved,
# without the fixed-weight probes (whose cost grows with B: R windows of B samples each),
# medians of REPEATS rounds; prints the machine's load before each run (a loaded machine
# makes parallel workers look slower than they are).
# Usage: bench/sweep_jobs.sh [REPEATS]   (from the repository root, after a build)
set -euo pipefail
repeats="${1:-3}"
cli=build/app/cli/accumlab-cli
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
sweep() {  # jobs
  local start end
  start=$(date +%s.%N)
  "$cli" sweep --db "$tmp/runs.sqlite" --data fashion-mnist -m 32 \
    -B 8,16,32,64,128,256,512,1024,2048,4096,8192,16384 --lr 0.01 --lr-scaling linear \
    --samples 30000 --target-loss 0.55 --probe-repeats 0 --jobs "$1" -q >/dev/null
  end=$(date +%s.%N)
  /usr/bin/python3 -c "print(f'{$end - $start:.1f}')"
}
median() { printf '%s\n' "$@" | sort -n | sed -n "$(( ($# + 1) / 2 ))p"; }
one=() two=()
for r in $(seq "$repeats"); do
  echo "round $r: load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
  one+=("$(sweep 1)")
  two+=("$(sweep 2)")
  echo "  --jobs 1: ${one[-1]} s   --jobs 2: ${two[-1]} s" >&2
done
m1=$(median "${one[@]}") m2=$(median "${two[@]}")
/usr/bin/python3 -c "print(f'12-point sweep, median of $repeats: --jobs 1 {$m1} s, --jobs 2 {$m2} s, ratio {$m1 / $m2:.2f}x')"
