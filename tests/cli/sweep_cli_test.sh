#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# End-to-end tests of `accumlab-cli sweep`. Usage: sweep_cli_test.sh CASE PATH/TO/accumlab-cli
source "$(dirname "$0")/cli_lib.sh"

db="$tmp/runs.sqlite"
# Four effective batches on blobs with the linear LR rule; every point trains at most 20000
# samples and stops at the target (each takes 1-2 s).
grid=(sweep --db "$db" --data blobs -m 8 -B 8,16,32,64 --lr 0.01 --lr-scaling linear
      --samples 20000 --probe-repeats 0 --target-loss 0.3)

case "$case_name" in
  run)
    "$cli" "${grid[@]}" --jobs 2 --json >"$tmp/out" 2>"$tmp/err" || fail "sweep failed: $(cat "$tmp/err")"
    grep -q "^point 4/4 " "$tmp/err" || fail "no progress lines: $(cat "$tmp/err")"
    "$cli" list --sweeps --json --db "$db" >"$tmp/list" || fail "list --sweeps failed"
    "$cli" show-sweep 1 --json --db "$db" >"$tmp/show" || fail "show-sweep failed"
    "$cli" list --json --db "$db" >"$tmp/runs" || fail "list failed"
    $py - "$tmp/out" "$tmp/list" "$tmp/show" "$tmp/runs" <<'PY' || fail "sweep output is wrong: $(head -c 1500 "$tmp/out")"
import json, math, sys
out, sweeps, show, runs = (json.load(open(f)) for f in sys.argv[1:])
points = out["points"]
assert [p["effective_batch"] for p in points] == [8, 16, 32, 64], points
assert [(p["micro_batch"], p["accum"]) for p in points] == [(8, 1), (8, 2), (8, 4), (8, 8)]
run_ids = {r["id"]: r for r in runs}
for p in points:
    assert p["status"] in ("reached", "missed"), p
    r = run_ids[p["run_id"]]  # each point is a normal stored run of the accum arm
    assert r["arm"] == "accum" and (r["micro_batch"], r["accum"]) == (p["micro_batch"], p["accum"]), r
    if p["status"] == "reached":
        # Stopped at the target: it trained about as far as the crossing, not its budget.
        assert 0 < p["steps_to_target"] <= p["steps"], p
        assert abs(p["samples_to_target"] - p["steps_to_target"] * p["effective_batch"]) <= p["effective_batch"], p
        assert r["status"] == "stopped", r
    assert p["loss_variance"] > 0 and p["peak_tensor_bytes"] > 0 and p["samples_per_s"] > 0, p
reached = [p for p in points if p["status"] == "reached"]
assert len(reached) >= 3, points
# Bigger batches need fewer steps (each step sees more samples).
steps = [p["steps_to_target"] for p in reached]
assert steps == sorted(steps, reverse=True), steps
f = out["fit"]
assert f is not None and f["s_min"] < min(steps) and f["e_min"] > 0 and f["r2"] > 0.8, f
v = out["variance_slope"]
assert v is not None and v["slope"] < 0 and v["ci_low"] <= v["slope"] <= v["ci_high"], v
assert sweeps[0]["id"] == 1 and sweeps[0]["points"] == 4 and sweeps[0]["done"] == 4, sweeps
assert show["points"] == points and show["fit"] == f, (show, out)
PY
    "$cli" show-sweep 1 --csv --db "$db" >"$tmp/csv" || fail "show-sweep --csv failed"
    $py - "$tmp/csv" "$tmp/out" <<'PY' || fail "CSV is wrong: $(head -c 600 "$tmp/csv")"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
points = json.load(open(sys.argv[2]))["points"]
assert len(rows) == 4 and rows[0]["sweep_id"] == "1", rows
for r, p in zip(rows, points):
    assert int(r["effective_batch"]) == p["effective_batch"] and r["status"] == p["status"], (r, p)
    assert abs(float(r["steps_to_target"]) - p["steps_to_target"]) < 1e-9, (r, p)
PY
    "$cli" show-sweep 1 --db "$db" >"$tmp/table" || fail "show-sweep table failed"
    grep -q "S(B) = S_min + E_min/B" "$tmp/table" || fail "no fit line: $(cat "$tmp/table")"
    ;;
  resume)
    # Ctrl-C while the first point trains: it stops at a window boundary (stored as
    # interrupted, unless it reached the target first) and the rest stay pending; --resume
    # trains those with the stored config and target, and keeps what had ended.
    "$cli" "${grid[@]}" --jobs 1 -q >"$tmp/out" 2>"$tmp/err" &
    pid=$!
    for _ in $(seq 100); do
      "$cli" show-sweep 1 --json --db "$db" 2>/dev/null | grep -q '"running"' && break
      sleep 0.1
    done
    kill -INT $pid
    wait $pid
    rc=$?
    [ "$rc" -eq 130 ] || fail "a stopped sweep must exit 130, got $rc ($(cat "$tmp/err"))"
    "$cli" show-sweep 1 --json --db "$db" >"$tmp/before" || fail "show-sweep failed"
    $py - "$tmp/before" <<'PY' || fail "stopped sweep is wrong: $(head -c 900 "$tmp/before")"
import json, sys
s = json.load(open(sys.argv[1]))
status = [p["status"] for p in s["points"]]
# Points that ended before the signal, then the one it stopped, then those never started.
ended = 0
while ended < len(status) and status[ended] == "reached":
    ended += 1
rest = status[ended:]
assert rest and rest[0] in ("interrupted", "pending") and set(rest[1:]) <= {"pending"}, status
PY
    "$cli" sweep --resume 1 --db "$db" --jobs 2 --json -q >"$tmp/after" 2>"$tmp/err" ||
      fail "resume failed: $(cat "$tmp/err")"
    $py - "$tmp/before" "$tmp/after" <<'PY' || fail "resume is wrong: $(head -c 900 "$tmp/after")"
import json, sys
before, after = (json.load(open(f)) for f in sys.argv[1:])
assert all(p["status"] == "reached" for p in after["points"]), after["points"]
for b, a in zip(before["points"], after["points"]):
    if b["status"] == "reached":
        assert a["run_id"] == b["run_id"], (b, a)  # kept, not trained again
    elif b["status"] == "interrupted":
        assert a["run_id"] != b["run_id"], (b, a)  # trained again as a new run
assert after["fit"] is not None, after
PY
    ;;
  grid)
    # Each B with each m (K = B/m); a B below m is one micro-batch of B. Points that train
    # their budget without reaching the target are kept as missed.
    "$cli" sweep --db "$db" -m 8,16 -B 8,32 --samples 256 --probe-repeats 0 --target-loss 0.001 \
      --jobs 2 --json -q >"$tmp/out" 2>"$tmp/err" || fail "sweep failed: $(cat "$tmp/err")"
    $py - "$tmp/out" <<'PY' || fail "grid is wrong: $(head -c 900 "$tmp/out")"
import json, sys
s = json.load(open(sys.argv[1]))
assert [(p["micro_batch"], p["accum"]) for p in s["points"]] == [(8, 1), (8, 4), (16, 2)], s["points"]
assert all(p["status"] == "missed" for p in s["points"]), s["points"]
assert s["fit"] is None and "3 batch sizes" in s["fit_error"], s
PY
    # A validation-accuracy target: the crossing comes from the evaluations.
    "$cli" sweep --db "$db" --data blobs -m 8 -B 8,16,32 --samples 8000 --eval-every 256 \
      --probe-repeats 0 --target-val-accuracy 0.9 --jobs 2 --json -q >"$tmp/acc" 2>"$tmp/err" ||
      fail "accuracy sweep failed: $(cat "$tmp/err")"
    $py - "$tmp/acc" <<'PY' || fail "accuracy target is wrong: $(head -c 900 "$tmp/acc")"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["target"]["kind"] == "val_accuracy" and s["target"]["value"] == 0.9, s["target"]
for p in s["points"]:
    assert p["status"] == "reached", p
    assert p["val_accuracy"] >= 0.9 and p["samples_to_target"] <= 8000, p
PY
    ;;
  errors)
    expect_exit 2 "needs a target" sweep --db "$db" -B 8,16 -m 8
    expect_exit 2 "not a multiple of m = 8" sweep --db "$db" -B 8,12 -m 8 --target-loss 0.5
    expect_exit 2 "at least 2 points" sweep --db "$db" -m 8 -k 4 --target-loss 0.5
    expect_exit 2 "no sweep 7" sweep --db "$db" --resume 7
    expect_exit 2 "no sweep 7" show-sweep 7 --db "$db"
    expect_exit 2 "unknown dataset" sweep --db "$db" -B 8,16 -m 8 --target-loss 0.5 --data nosuch
    expect_exit 2 "needs image samples" sweep --db "$db" -B 8,16 -m 8 --target-loss 0.5 --model cnn
    expect_exit 2 "a sweep trains accum or a pitfall arm" sweep --db "$db" -B 8,16 -m 8 --target-loss 0.5 --arm big-batch
    expect_exit 2 "arm 'nosuch'" sweep --db "$db" -B 8,16 -m 8 --target-loss 0.5 --arm nosuch
    [ ! -f "$db" ] || [ "$("$cli" list --sweeps --json --db "$db")" = "[]" ] || fail "bad input stored a sweep"
    ;;
  pitfall)
    # --arm: every point trains the wrong recipe instead of accum, stored under its name.
    "$cli" sweep --db "$db" --data blobs -m 8 -B 8,16,32 --lr 0.01 --samples 6000 \
      --probe-repeats 0 --target-loss 0.3 --jobs 2 --arm pitfall:sum --json \
      >"$tmp/out" 2>"$tmp/err" || fail "sweep --arm failed: $(cat "$tmp/err")"
    "$cli" list --json --db "$db" >"$tmp/runs" || fail "list failed"
    $py - "$tmp/out" "$tmp/runs" <<'PY' || fail "sweep --arm is wrong: $(head -c 1500 "$tmp/out")"
import json, sys
out, runs = (json.load(open(f)) for f in sys.argv[1:])
by_id = {r["id"]: r for r in runs}
assert len(out["points"]) == 3, out
for p in out["points"]:
    r = by_id[p["run_id"]]
    assert r["arm"] == "pitfall:sum" and r["accum"] == p["accum"], r
PY
    "$cli" show-sweep 1 --db "$db" >"$tmp/table" || fail "show-sweep failed"
    grep -q "every point training the wrong recipe pitfall:sum" "$tmp/table" ||
      fail "show-sweep does not name the recipe: $(head -3 "$tmp/table")"
    ;;
  jsonl)
    # `--progress jsonl`: only JSON objects on stderr, one per line, with typed fields; the
    # Sweeps tab reads these and never the text.
    "$cli" sweep --db "$db" --data blobs -m 8 -B 8,16,32 --lr 0.01 --lr-scaling linear \
      --samples 6000 --probe-repeats 0 --target-loss 0.3 --jobs 2 --progress jsonl \
      >"$tmp/out" 2>"$tmp/err" || fail "sweep failed: $(cat "$tmp/err")"
    $py - "$tmp/err" <<'PY' || fail "the progress lines are wrong: $(head -c 2000 "$tmp/err")"
import json, sys
events = [json.loads(l) for l in open(sys.argv[1]).read().splitlines()]
assert all(isinstance(e, dict) for e in events), events
kinds = [e["event"] for e in events]
assert kinds[0] == "sweep_started" and kinds[-1] == "sweep_finished", kinds
s = events[0]
assert s["sweep"] == 1 and s["points"] == 3 and s["jobs"] == 2, s
assert s["target"] == {"kind": "loss", "value": 0.3, "smoothing": 0.9}, s
started = {e["point"]: e for e in events if e["event"] == "point_started"}
finished = [e for e in events if e["event"] == "point_finished"]
assert sorted(started) == [0, 1, 2] and sorted(e["point"] for e in finished) == [0, 1, 2], kinds
for e in started.values():
    assert e["micro_batch"] == 8 and e["effective_batch"] == 8 * e["accum"], e
    assert e["accum"] in (1, 2, 4) and e["lr"] == 0.01, e
for i, e in enumerate(finished):
    assert e["done"] == i + 1 and e["total"] == 3 and e["sweep"] == 1, e
    assert e["status"] in ("reached", "missed"), e
    assert isinstance(e["run_id"], int) and e["run_id"] > 0 and e["seconds"] > 0, e
    assert kinds.index("point_finished") > kinds.index("point_started"), kinds
end = events[-1]
assert end["done"] == 3 and end["total"] == 3 and not end["stopped"] and not end["failed"], end
PY
    # A bad input: an error object (then the sentence), and nothing stored.
    expect_exit 2 "unknown dataset" sweep --db "$tmp/bad.sqlite" -B 8,16 -m 8 --target-loss 0.5 \
      --data nosuch --progress jsonl
    $py - "$tmp/err" <<'PY' || fail "no error object: $(cat "$tmp/err")"
import json, sys
first = json.loads(open(sys.argv[1]).readline())
assert first["event"] == "error" and "unknown dataset" in first["message"], first
PY
    ;;
  array)
    # The same sweep as an array job, its tasks started by hand as a scheduler would
    # (`sweep-point FOLDER --point I`), then collected: the same table and fit as trained here.
    "$cli" "${grid[@]}" --jobs 2 --json >"$tmp/local" 2>"$tmp/err" || fail "local sweep failed: $(cat "$tmp/err")"
    other="$tmp/collected.sqlite"
    "$cli" "${grid[@]/$db/$other}" --slurm --results "$tmp/results" --sbatch=--partition=debug \
      >"$tmp/out" 2>"$tmp/err" || fail "sweep --slurm failed: $(cat "$tmp/err")"
    script="$tmp/results/sweep.sbatch"
    [ -x "$script" ] || fail "no array script: $(ls "$tmp/results")"
    grep -q '^#SBATCH --array=0-3$' "$script" || fail "not a 4-task array: $(cat "$script")"
    grep -q '^#SBATCH --partition=debug$' "$script" || fail "--sbatch option missing: $(cat "$script")"
    grep -q 'sweep-point .* --point "\$SLURM_ARRAY_TASK_ID"$' "$script" || fail "no task line: $(cat "$script")"
    [ ! -e "$other" ] || [ "$("$cli" list --sweeps --json --db "$other")" = "[]" ] ||
      fail "--slurm stored a sweep before any point trained"
    for i in 0 1 2; do
      "$cli" sweep-point "$tmp/results" --point $i 2>>"$tmp/err" || fail "point $i failed: $(cat "$tmp/err")"
    done
    # Point 3 has not run: it is named, and the others are stored.
    "$cli" sweep collect "$tmp/results" --db "$other" --json >"$tmp/first" 2>"$tmp/err" &&
      fail "a collect with a missing point exited 0"
    grep -q "missing point 3 (B=64 (8×8) lr=0.01): no outcome yet" "$tmp/err" ||
      fail "the missing point is not named: $(cat "$tmp/err")"
    "$cli" sweep-point "$tmp/results" --point 3 2>>"$tmp/err" || fail "point 3 failed"
    "$cli" sweep collect "$tmp/results" --db "$other" --json >"$tmp/collected" 2>"$tmp/err" ||
      fail "collect failed: $(cat "$tmp/err")"
    grep -q "points collected now: 1, before: 3, missing: 0, failed: 0" "$tmp/err" ||
      fail "a second collect did not add only the new point: $(cat "$tmp/err")"
    "$cli" sweep collect "$tmp/results" --db "$other" >/dev/null 2>"$tmp/err" || fail "third collect failed"
    grep -q "points collected now: 0, before: 4" "$tmp/err" || fail "collecting again added something: $(cat "$tmp/err")"
    $py - "$tmp/local" "$tmp/collected" "$("$cli" list --json --db "$other")" <<'PY' || fail "collected sweep differs from the local one"
import json, sys
local, collected = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
runs = json.loads(sys.argv[3])
assert len(runs) == 4, f"{len(runs)} runs stored after three collects"
# Everything but the run ids and the speed is the same to the last digit.
def same(p):
    return {k: v for k, v in p.items() if k not in ("run_id", "samples_per_s")}
assert [same(p) for p in local["points"]] == [same(p) for p in collected["points"]], \
    (local["points"], collected["points"])
assert local["fit"] == collected["fit"], (local["fit"], collected["fit"])
assert local["variance_slope"] == collected["variance_slope"]
assert local["b_simple"] == collected["b_simple"]
print("steps to target, local and collected:", [p["steps_to_target"] for p in local["points"]])
PY
    ;;
  *) fail "unknown case" ;;
esac
