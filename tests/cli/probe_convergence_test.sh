#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The same-weights read-out converges on the default demo (Fashion-MNIST, MLP, m = 8, K = 8,
# LR 0.02): at the end, the pooled ratio of all the run's probes lies within ±15% of K and its
# 90% interval is at most ±25% of K wide. Usage: probe_convergence_test.sh SEED ACCUMLAB_CLI.
# Only the accum arm trains: its probes are the same without the other arms. 3 epochs with a
# probe every 8,000 samples (the closest the trainer spaces this pool's probes) pool 21 probes
# (the demo's 5 epochs, a probe every 10,000: 30) in 60% of the time, with the same bounds.
# Other seeds and K: bench/probe_convergence.sh.
set -uo pipefail
seed="$1"
cli="$2"
[ -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ] ||
  { echo "SKIP: Fashion-MNIST is not installed"; exit 77; }
out="$("$cli" run --data fashion-mnist --lr 0.02 --eval-every 10000 --epochs 3 \
  --probe-every 8000 --micro-batch 8 --accum 8 --arms accum --seed "$seed" --no-store --json -q)" ||
  { echo "FAIL [seed $seed]: run failed"; exit 1; }
OUT="$out" /usr/bin/python3 - "$seed" <<'PY' || { echo "FAIL [seed $seed]"; exit 1; }
import json, os, sys
p = json.loads(os.environ["OUT"])["variance_probe"]
k, latest = p["theory"], p["latest"]["ratio"]
print(f"seed {sys.argv[1]}: {p['ratio']:.2f} [{p['ci_low']:.2f}, {p['ci_high']:.2f}] "
      f"over {p['pooled']} probes, theory {k:g}; latest {latest:.2f}")
assert k == 8, "theory is not K"
assert p["pooled"] >= 20, "too few probes pooled"
assert abs(p["ratio"] / k - 1) <= 0.15, "read-out further than 15% from K"
assert (p["ci_high"] - p["ci_low"]) / 2 <= 0.25 * k, "interval wider than ±25% of K"
assert p["ci_low"] < p["ratio"] < p["ci_high"]
PY
