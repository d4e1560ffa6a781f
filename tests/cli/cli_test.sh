#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# End-to-end tests of accumlab-cli. Usage: cli_test.sh CASE PATH/TO/accumlab-cli
source "$(dirname "$0")/cli_lib.sh"

case "$case_name" in
  default_json)
    "$cli" run --samples 4096 --json -q >"$tmp/out" 2>"$tmp/err" || fail "run failed: $(cat "$tmp/err")"
    /usr/bin/python3 - "$tmp/out" <<'PY' || fail "JSON summary is wrong: $(head -c 600 "$tmp/out")"
import json, math, sys
s = json.load(open(sys.argv[1]))
assert s["config"]["micro_batch"] == 8 and s["config"]["accum"] == 8, s["config"]
arms = s["arms"]
assert set(arms) == {"no-accum", "accum", "big-batch"}, arms.keys()
for name, a in arms.items():
    assert a["status"] == "finished", (name, a["status"])
    assert a["samples_seen"] == 4096, (name, a["samples_seen"])
    assert a["samples_per_s"] > 0 and a["peak_memory_bytes"] > 0
    assert a["peak_tensor_bytes"] > 0, (name, a["peak_tensor_bytes"])
    assert 0 <= a["val_accuracy"] <= 1
# Each arm counts its own tensors: one batch of 64 holds more than one of 8.
assert arms["big-batch"]["peak_tensor_bytes"] > arms["accum"]["peak_tensor_bytes"], arms
assert arms["accum"]["steps"] == 4096 // 64 and arms["no-accum"]["steps"] == 4096 // 8
# 64 steps: accum and big-batch must agree to float32 rounding.
assert arms["accum"]["equivalence_rel_diff"] < 1e-5, arms["accum"]["equivalence_rel_diff"]
PY
    ;;
  trajectories_parted)
    # Spirals at lr 0.1 parts in float32: the table says where and why, as the JSON has it;
    # float64 stays together and says nothing.
    common=(run --no-store --data spirals --model mlp:64 --lr 0.1 --samples 20000 --arms accum,big-batch -q)
    "$cli" "${common[@]}" >"$tmp/table" 2>"$tmp/err" || fail "run failed: $(cat "$tmp/err")"
    "$cli" "${common[@]}" --json >"$tmp/json" 2>"$tmp/err" || fail "run failed: $(cat "$tmp/err")"
    step=$($py -c 'import json, sys; print(json.load(open(sys.argv[1]))["arms"]["big-batch"]["trajectories_parted_at_step"])' "$tmp/json")
    [ "$step" -gt 1 ] || fail "the float32 run did not part: $step"
    grep -q "^trajectories accum ↔ big-batch parted at update $step (beyond the 1e-05 of rounding)" "$tmp/table" ||
      fail "no line saying where the trajectories parted: $(cat "$tmp/table")"
    grep -q "accumulation itself stays exact (gradient check (largest, kinks excluded) " "$tmp/table" ||
      fail "the line does not say what stays exact: $(cat "$tmp/table")"
    "$cli" "${common[@]}" --dtype float64 >"$tmp/table64" 2>"$tmp/err" || fail "run failed: $(cat "$tmp/err")"
    if grep -q "^trajectories" "$tmp/table64"; then fail "float64 should not part: $(cat "$tmp/table64")"; fi
    grep -q "parted at update .*kink (a ReLU's 0) in one arm only" "$tmp/table" ||
      fail "the MLP's parting does not name its ReLUs: $(cat "$tmp/table")"
    ;;
  trajectories_parted_gru)
    # A float64 GRU with Adam parts from the big batch beyond 1e-12 after some 50 updates: the
    # model has no ReLU, so the line names what it has (a recurrence, Adam), not a kink.
    $py -c 'import random; r = random.Random(11); w = "the a of to and in is it you that water".split()
print("\n".join(" ".join(r.choice(w) for _ in range(r.randint(1, 12))) for _ in range(40)))' >"$tmp/lines.txt"
    "$cli" run --no-store --data "text:$tmp/lines.txt" --model charlm:16 --arms accum,big-batch \
      -m 2 -k 3 --dtype float64 --optimizer adam --lr 0.1 --epochs 20 -q >"$tmp/table" 2>"$tmp/err" ||
      fail "run failed: $(cat "$tmp/err")"
    grep -q "^trajectories accum ↔ big-batch parted at update" "$tmp/table" ||
      fail "the GRU did not part: $(cat "$tmp/table")"
    if grep "^trajectories" "$tmp/table" | grep -q "ReLU"; then
      fail "a GRU's parting is blamed on a ReLU: $(grep "^trajectories" "$tmp/table")"
    fi
    grep "^trajectories" "$tmp/table" | grep -q "recurrence.*Adam, which divides each gradient" ||
      fail "the GRU's parting does not name its recurrence and Adam: $(grep "^trajectories" "$tmp/table")"
    ;;
  memory_budget)
    # The CNN on 28×28 images needs about 0.7 MiB + 70 KiB per sample: 3 MiB fits m = 32.
    "$cli" run --no-store --data blobs:1x28x28 --synthetic-samples 600 --model cnn \
      --memory-budget 3MiB --effective-batch 256 --samples 512 --arms accum --json -q \
      >"$tmp/out" 2>"$tmp/err" || fail "budget run failed: $(cat "$tmp/err")"
    grep -q "memory budget 3.0 MiB: m = " "$tmp/err" || fail "no reason on stderr: $(cat "$tmp/err")"
    /usr/bin/python3 - "$tmp/out" <<'PY' || fail "budget fit is wrong: $(head -c 900 "$tmp/out")"
import json, sys
s = json.load(open(sys.argv[1]))
b = s["memory_budget"]
m, k = s["config"]["micro_batch"], s["config"]["accum"]
assert (m, k) == (b["micro_batch"], b["accum"]), (m, k, b)
assert 16 <= m <= 32 and m * k >= 256 and (m - 1) * k < 256, (m, k)
assert b["predicted_peak_tensor_bytes"] <= 3 * 2**20, b
# The run keeps to the budget it was fitted for (the prediction is within a few %).
assert s["arms"]["accum"]["peak_tensor_bytes"] <= 1.05 * 3 * 2**20, s["arms"]["accum"]
PY
    expect_exit 2 "below the" run --no-store --data blobs:1x28x28 --synthetic-samples 600 \
      --model cnn --memory-budget 100KiB --effective-batch 256 --samples 64
    expect_exit 2 "memory size 'plenty'" run --no-store --memory-budget plenty --effective-batch 64
    expect_exit 2 "memory-budget" run --no-store --effective-batch 64
    echo '{"memory_budget": -1}' >"$tmp/negative.json"
    expect_exit 2 "memory budget must be zero" run --no-store --config "$tmp/negative.json"
    ;;
  memory_enforced)
    # Without --effective-batch the budget is enforced as given: between the peaks of m = 64
    # and m = 32, the first window runs out of memory, starts over in halves and the run ends
    # with the weights of 32 × 8 (float64: its validation loss to 1e-12).
    common=(run --no-store --arms accum --samples 1024 --dtype float64 --momentum 0 --json)
    "$cli" "${common[@]}" -q -m 64 -k 4 >"$tmp/p64" 2>"$tmp/err" || fail "m=64 run: $(cat "$tmp/err")"
    "$cli" "${common[@]}" -q -m 32 -k 8 >"$tmp/p32" 2>"$tmp/err" || fail "m=32 run: $(cat "$tmp/err")"
    budget=$($py -c 'import json, sys
print(sum(json.load(open(f))["arms"]["accum"]["peak_tensor_bytes"] for f in sys.argv[1:]) // 2)' \
      "$tmp/p64" "$tmp/p32")
    "$cli" "${common[@]}" -m 64 -k 4 --memory-budget "$budget" >"$tmp/out" 2>"$tmp/err" ||
      fail "budget run failed: $(cat "$tmp/err")"
    grep -q "accum: out of memory at m=64: continuing with 32×8" "$tmp/err" ||
      fail "no out-of-memory event on stderr: $(cat "$tmp/err")"
    $py - "$tmp/out" "$tmp/p32" "$budget" <<'PY' || fail "recovered run is wrong: $(head -c 900 "$tmp/out")"
import json, sys
s, ref, budget = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), int(sys.argv[3])
a, r = s["arms"]["accum"], ref["arms"]["accum"]
assert s["config"]["memory_budget"] == budget, s["config"]
assert a["status"] == "finished" and a["micro_batch"] == 64 and a["accum"] == 4, a
assert a["peak_tensor_bytes"] <= budget, (a["peak_tensor_bytes"], budget)
assert abs(a["val_loss"] - r["val_loss"]) <= 1e-12 * abs(r["val_loss"]), (a["val_loss"], r["val_loss"])
PY
    # Weights alone past the budget: the arm fails in one sentence and the run exits 1.
    "$cli" run --no-store --memory-budget 1KiB --samples 64 --arms accum --json -q >"$tmp/out" 2>"$tmp/err"
    [ $? -eq 1 ] || fail "an arm that cannot fit must exit 1 ($(cat "$tmp/err"))"
    $py - "$tmp/out" <<'PY' || fail "no failure sentence: $(head -c 900 "$tmp/out")"
import json, sys
a = json.load(open(sys.argv[1]))["arms"]["accum"]
assert a["status"] == "failed", a
assert a["message"].startswith("out of memory even with micro-batches of one sample"), a["message"]
PY
    ;;
  bad_options)
    expect_exit 2 "^accumlab-cli: --micro-batch: must be a positive number, not 0 " run --micro-batch 0
    expect_exit 2 "--limit: must be zero or more, not -1 " list --limit -1
    expect_exit 2 "optimizer 'rmsprop'" run --optimizer rmsprop --samples 64
    expect_exit 2 "window policy" run --window-policy sometimes --samples 64
    expect_exit 2 "unknown dataset 'nosuch'" run --data nosuch --samples 64
    expect_exit 2 "unknown model 'resnet'" run --model resnet --samples 64
    expect_exit 2 "needs image samples" run --model cnn --data spirals --samples 64
    expect_exit 2 "--frobnicate" run --frobnicate
    expect_exit 2 "device 'cuda:x'" run --device cuda:x --samples 64
    expect_exit 2 "" run --epochs 1 --samples 10
    ;;
  exit_codes)
    expect_exit 0 "" --help
    expect_exit 2 "" 
    "$cli" run --samples 640 --lr 1e6 --optimizer sgd --momentum 0 -q --json >"$tmp/out" 2>"$tmp/err"
    [ $? -eq 0 ] || fail "a diverging run must still exit 0 with the arm marked diverged"
    grep -q '"diverged"' "$tmp/out" || fail "huge LR did not mark an arm diverged"
    ;;
  config_file)
    cat >"$tmp/exp.json" <<'JSON'
{"data": "blobs", "micro_batch": 4, "accum": 2, "arms": ["accum", "big-batch"],
 "optimizer": {"kind": "adamw", "lr": 0.001, "weight_decay": 0.01}, "samples": 800}
JSON
    "$cli" run --config "$tmp/exp.json" --accum 4 --json -q >"$tmp/out" 2>"$tmp/err" || fail "$(cat "$tmp/err")"
    /usr/bin/python3 - "$tmp/out" <<'PY' || fail "config file not applied: $(head -c 600 "$tmp/out")"
import json, sys
s = json.load(open(sys.argv[1]))
c = s["config"]
assert c["data"] == "blobs" and c["micro_batch"] == 4 and c["accum"] == 4, c
assert c["optimizer"]["kind"] == "adamw" and c["optimizer"]["weight_decay"] == 0.01, c
assert list(s["arms"]) == ["accum", "big-batch"] or set(s["arms"]) == {"accum", "big-batch"}
PY
    echo '{"micro_batch": "eight"}' >"$tmp/bad.json"
    expect_exit 2 "bad.json: key 'micro_batch' has the wrong type" run --config "$tmp/bad.json"
    echo '{"micro_batch": ' >"$tmp/broken.json"
    expect_exit 2 "broken.json is not valid JSON" run --config "$tmp/broken.json"
    ;;
  preset_default)
    # `--preset default` is the app's first experiment (defaultExperiment in core); options
    # given with it override its values.
    "$cli" run --preset default --samples 512 --no-store --json -q >"$tmp/out" 2>"$tmp/err" ||
      fail "run --preset default failed: $(cat "$tmp/err")"
    "$cli" run --preset default --samples 512 --lr 0.05 -m 4 --no-store --json -q >"$tmp/over" \
      2>"$tmp/err" || fail "run --preset default with options failed: $(cat "$tmp/err")"
    fashion=0
    [ -d /usr/share/datasets/fashion-mnist ] && fashion=1
    $py - "$tmp/out" "$tmp/over" "$fashion" <<'PY' || fail "the preset's config is wrong: $(head -c 800 "$tmp/out")"
import json, sys
c = json.load(open(sys.argv[1]))["config"]
over = json.load(open(sys.argv[2]))["config"]
fashion = sys.argv[3] == "1"
assert c["micro_batch"] == 8 and c["accum"] == 8 and c["model"] == "mlp", c
assert c["samples"] == 512 and c["epochs"] == 0, c  # the budget given replaces the epochs
if fashion:
    assert c["data"] == "fashion-mnist" and c["optimizer"]["lr"] == 0.02, c
    assert c["eval_every"] == 10000, c
else:
    assert c["data"] == "spirals", c
assert over["optimizer"]["lr"] == 0.05 and over["micro_batch"] == 4, over
assert over["data"] == c["data"] and over["accum"] == 8, over
PY
    expect_exit 2 "unknown preset 'nope'; the presets are: default" run --preset nope --no-store
    echo '{}' >"$tmp/empty.json"
    expect_exit 2 "excludes" run --preset default --config "$tmp/empty.json" --no-store
    ;;
  progress_jsonl)
    # `--progress jsonl`: one JSON object per line on stderr, nothing else; stdout keeps the
    # summary.
    "$cli" run --data blobs --samples 2048 --probe-repeats 0 --progress jsonl --no-store --json \
      >"$tmp/out" 2>"$tmp/err" || fail "run --progress jsonl failed: $(cat "$tmp/err")"
    $py - "$tmp/err" "$tmp/out" <<'PY' || fail "the progress lines are wrong: $(head -c 1500 "$tmp/err")"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
events = [json.loads(l) for l in lines]  # every line is one JSON object
assert all(isinstance(e, dict) and "event" in e for e in events), events
kinds = [e["event"] for e in events]
assert kinds[0] == "run_started" and kinds[-1] == "run_finished", kinds
s = events[0]
assert s["micro_batch"] == 8 and s["accum"] == 8 and s["budget_samples"] == 2048, s
assert s["arms"] == ["no-accum", "accum", "big-batch"], s
steps = [e for e in events if e["event"] == "step"]
assert steps and all(isinstance(e["samples_seen"], int) and e["arm"] in s["arms"] for e in steps)
ended = {e["arm"]: e for e in events if e["event"] == "arm_finished"}
assert set(ended) == set(s["arms"]), ended
assert all(e["status"] == "finished" and e["samples_seen"] == 2048 for e in ended.values()), ended
json.load(open(sys.argv[2]))  # the summary is still on stdout
PY
    # A bad input is an error object too, then the sentence.
    expect_exit 2 "" run --data nope --progress jsonl --no-store
    $py - "$tmp/err" <<'PY' || fail "no error object: $(cat "$tmp/err")"
import json, sys
first = json.loads(open(sys.argv[1]).readline())
assert first["event"] == "error" and "nope" in first["message"], first
PY
    expect_exit 2 "progress" run --progress yaml --no-store
    ;;
  *) fail "unknown case" ;;
esac
echo "PASS [$case_name]"
