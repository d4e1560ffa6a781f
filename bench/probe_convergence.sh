#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Where the same-weights read-out ends on the default demo (Fashion-MNIST, MLP, m = 8, 5
# epochs, LR 0.02, a probe every 10,000 samples), for seeds × K: the pooled ratio of all the
# run's probes and its 90% interval, against the targets ratio within ±15% of K and interval
# at most ±25% of K wide. Only the accum arm trains: its weights, and so its probes, are the
# same with or without the other arms (arms never share a generator), at a third of the time.
# Usage: bench/probe_convergence.sh [ACCUMLAB_CLI]
#   SEEDS="1 2 3" KS="4 8 16 32" JOBS=4 bench/probe_convergence.sh build/app/cli/accumlab-cli
#   DATA=idx:DIR reads the same files from another folder.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cli="${1:-$root/build/app/cli/accumlab-cli}"
seeds="${SEEDS:-1 2 3 4 5 6 7 8 9 10}"
ks="${KS:-4 8 16 32}"
jobs="${JOBS:-1}"
data="${DATA:-fashion-mnist}"
[ "$data" != fashion-mnist ] || [ -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ] ||
  { echo "probe_convergence: Fashion-MNIST is not installed (dataset-fashion-mnist)" >&2; exit 77; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

one() {  # seed K: the run's summary JSON in $tmp/S-K.json
  "$cli" run --data "$data" --lr 0.02 --eval-every 10000 --epochs 5 --micro-batch 8 \
    --accum "$2" --arms accum --seed "$1" --threads 1 --no-store --json -q >"$tmp/$1-$2.json"
}
export -f one
export cli tmp data
for s in $seeds; do for k in $ks; do echo "$s $k"; done; done |
  xargs -P "$jobs" -n 2 bash -c 'one "$0" "$1"'

/usr/bin/python3 - "$tmp" "$seeds" "$ks" <<'PY'
import json, sys
tmp, seeds, ks = sys.argv[1], sys.argv[2].split(), sys.argv[3].split()
print("same-weights read-out at the end of the default demo: pooled ratio [90% interval] (probes)")
print("seed " + "".join(f"{'K = ' + k:>28}" for k in ks))
worst_centre = worst_width = 0.0
for s in seeds:
    row = f"{s:>4} "
    for k in ks:
        p = json.load(open(f"{tmp}/{s}-{k}.json"))["variance_probe"]
        kk = float(k)
        worst_centre = max(worst_centre, abs(p["ratio"] / kk - 1))
        worst_width = max(worst_width, (p["ci_high"] - p["ci_low"]) / 2 / kk)
        row += f"{p['ratio']:>9.2f} [{p['ci_low']:6.2f}, {p['ci_high']:6.2f}] ({p['pooled']:2d})"
    print(row)
ok = worst_centre <= 0.15 and worst_width <= 0.25
print(f"worst: read-out {100 * worst_centre:.1f}% from K (target ≤ 15%), interval ±"
      f"{100 * worst_width:.1f}% of K (target ≤ 25%): {'met' if ok else 'MISSED'}")
sys.exit(0 if ok else 1)
PY
