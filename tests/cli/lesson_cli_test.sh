#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# End-to-end tests of `accumlab-cli lesson`. Usage: lesson_cli_test.sh CASE PATH/TO/accumlab-cli
# CASE is one of: list, 1 … 9 (run that shipped lesson with its full budget and the default
# seed: every check must hold), wrong, bad_files, bad_prediction.
source "$(dirname "$0")/cli_lib.sh"

db="$tmp/runs.sqlite"
lessons="$(dirname "$0")/../../resources/lessons"

# A right answer to each shipped lesson's question (what its theory says).
declare -A answer=([1]=8 [2]=8 [3]="Only the MLP" [4]="flush-divide-by-K" [5]=100 [6]=10
                   [7]="Only A, the mean via a counter" [8]="SGD's; Adam hardly notices"
                   [9]="Only A, divided by the window's tokens")

case "$case_name" in
  list)
    "$cli" lesson list --db "$db" >"$tmp/out" 2>"$tmp/err" || fail "lesson list failed: $(cat "$tmp/err")"
    for id in noisy-micro-batch accumulate-k exactly-the-big-batch short-last-window \
              bigger-batch-stops-paying memory-against-time which-recipe-is-right \
              does-the-sum-hurt-adam tokens-not-micro-batches; do
      grep -q "$id" "$tmp/out" || fail "lesson list lacks $id: $(cat "$tmp/out")"
    done
    "$cli" lesson list --json --db "$db" >"$tmp/json" || fail "lesson list --json failed"
    $py - "$tmp/json" <<'PY' || fail "lesson list --json is wrong: $(head -c 600 "$tmp/json")"
import json, sys
lessons = json.load(open(sys.argv[1]))
assert [l["number"] for l in lessons] == list(range(1, len(lessons) + 1)) and len(lessons) >= 6
assert lessons[4]["sweep"] and lessons[4]["runs"] == 21, lessons[4]
assert all("latest" not in l for l in lessons), lessons  # nothing tried yet
PY
    ;;
  [1-9])
    n="$case_name"
    start=$(date +%s%N)
    "$cli" lesson run "$n" --predict "${answer[$n]}" --db "$db" --json -q >"$tmp/out" 2>"$tmp/err"
    rc=$?
    wall=$(( ($(date +%s%N) - start) / 1000000 ))
    # Lesson 6's speed check times two arms against each other: a test cannot hold the machine
    # quiet (ctest runs others beside it), so there it may fail, alone; the speed is measured
    # in bench/, and everything else below must still hold.
    timing_only=0
    if [ "$n" = 6 ] && [ "$rc" -eq 1 ] && $py -c '
import json, sys
out = json.load(open(sys.argv[1]))
assert [c["id"] for c in out["checks"] if not c["holds"]] == ["speed-ratio"]' "$tmp/out" 2>/dev/null; then
      timing_only=1
      echo "lesson 6: the speed check did not hold on this busy machine (allowed here)"
    fi
    [ "$rc" -eq 0 ] || [ "$timing_only" -eq 1 ] ||
      fail "lesson $n exited $rc: $(cat "$tmp/err") $(head -c 3000 "$tmp/out")"
    echo "lesson $n: ${wall} ms"
    "$cli" lesson results --json --db "$db" >"$tmp/results" || fail "lesson results failed"
    "$cli" lesson list --json --db "$db" >"$tmp/list" || fail "lesson list failed"
    "$cli" list --json --db "$db" >"$tmp/runs" || fail "list failed"
    $py - "$n" "$tmp/out" "$tmp/results" "$tmp/list" "$tmp/runs" "$wall" "$timing_only" <<'PY' || fail "lesson $n is wrong: $(head -c 3000 "$tmp/out")"
import json, os, sys
n = int(sys.argv[1])
out, results, lessons, runs = (json.load(open(f)) for f in sys.argv[2:6])
wall = float(sys.argv[6]) / 1000
timing_only = sys.argv[7] == "1"  # lesson 6's speed check alone did not hold
assert out["all_hold"] is not timing_only, out
for c in out["checks"]:
    assert c["measured"] is not None and c["sentence"], c
    assert c["holds"] is True or (timing_only and c["id"] == "speed-ratio"), c
# The prediction is the theory's answer: it is judged right.
assert out["prediction"]["correct"] is True, out["prediction"]
# "Each runnable in under 2 minutes on a 2-core machine" is a speed target, measured alone
# (`time accumlab-cli lesson run N`); here other tests share the cores, so only a run that
# hangs or crawls fails (a sanitizer build gets tests/sanitize/env.sh's allowance).
assert wall < 400 * float(os.environ.get("ACCUMLAB_TEST_TIME_SCALE", "1")), wall
# Stored: the attempt with its verdict, and every run it trained.
assert len(results) == 1, results
r = results[0]
assert r["id"] == out["store"]["lesson_result"] and r["prediction_correct"], r
assert r["all_hold"] is out["all_hold"], r
assert r["verdict"]["checks"] == out["checks"], (r["verdict"], out["checks"])
run_ids = {x["id"] for x in runs}
assert r["run_ids"] and set(r["run_ids"]) <= run_ids, (r["run_ids"], run_ids)
assert lessons[n - 1]["latest"]["all_hold"] is out["all_hold"], lessons[n - 1]
if n == 5:
    # A sweep lesson's points are also a stored sweep, one point per run.
    assert out["store"]["sweep_id"] == 1 and len(out["sweep"]["points"]) == 21, out["store"]
    assert out["sweep"]["b_crit"] is not None and out["sweep"]["b_simple"] is not None, out["sweep"]
PY
    # A build without the desktop app has no report (ACCUMLAB_WITH_REPORT=0, tests/cli/CMakeLists.txt).
    if [ "$n" = 2 ] && [ "${ACCUMLAB_WITH_REPORT:-1}" = 1 ]; then
      # The attempt's report, and a runs report that starts with the attempts of its runs.
      id=$($py -c 'import json,sys; print(json.load(open(sys.argv[1]))["store"]["lesson_result"])' "$tmp/out")
      run=$($py -c 'import json,sys; print(json.load(open(sys.argv[1]))["store"]["run_ids"][0])' "$tmp/out")
      "$cli" report --lesson "$id" -o "$tmp/lesson.html" --db "$db" >/dev/null 2>"$tmp/err" || fail "report --lesson failed: $(cat "$tmp/err")"
      "$cli" report "$run" -o "$tmp/runs.html" --db "$db" >/dev/null 2>"$tmp/err" || fail "report failed: $(cat "$tmp/err")"
      for f in lesson runs; do
        grep -q "<h2>Lesson results</h2>" "$tmp/$f.html" || fail "$f.html has no lesson results"
        grep -q "fixed-weight loss variance, micro-batch over window" "$tmp/$f.html" || fail "$f.html lacks the checks"
        grep -q "data:image/png;base64" "$tmp/$f.html" || fail "$f.html has no plots"
      done
      max_error_lines=1
      expect_exit 2 "there is no lesson result 99" report --lesson 99 -o "$tmp/x.html" --db "$db"
    fi
    if [ "$case_name" = 5 ]; then
      "$cli" show-sweep 1 --json --db "$db" >"$tmp/sweep" || fail "the lesson's sweep is not stored"
      grep -q '"reached"' "$tmp/sweep" || fail "the lesson's sweep has no reached point: $(head -c 600 "$tmp/sweep")"
    fi
    ;;
  wrong)
    # Lesson 2 with flush-divide-by-K forced: the short windows at the epoch ends are divided
    # by K, so the gradient check must fail with its "does not hold" text, and exit 1.
    $py - "$lessons/2-accumulate-k.json" "$tmp/wrong.json" <<'PY'
import json, sys
lesson = json.load(open(sys.argv[1]))
lesson["config"]["window_policy"] = "flush-divide-by-K"
json.dump(lesson, open(sys.argv[2], "w"))
PY
    "$cli" lesson run "$tmp/wrong.json" --db "$db" -q >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ "$rc" -eq 1 ] || fail "a failing check must exit 1, got $rc: $(cat "$tmp/err") $(cat "$tmp/out")"
    fails=$($py -c 'import json,sys; print(json.load(open(sys.argv[1]))["checks"][1]["fails"])' "$lessons/2-accumulate-k.json")
    grep -qF "$fails" "$tmp/out" || fail "the failed check's text is missing: $(cat "$tmp/out")"
    grep -q "^✗ accumulated gradient vs one big batch" "$tmp/out" || fail "no ✗ line: $(cat "$tmp/out")"
    grep -q "^✓ fixed-weight loss variance" "$tmp/out" || fail "the probe check should still hold: $(cat "$tmp/out")"
    grep -q "Not every check holds" "$tmp/out" || fail "no overall verdict: $(cat "$tmp/out")"
    "$cli" lesson results --json --db "$db" >"$tmp/results" || fail "lesson results failed"
    grep -q '"all_hold": false' "$tmp/results" || fail "the failed attempt is not stored: $(cat "$tmp/results")"
    ;;
  bad_files)
    max_error_lines=1
    printf '{"title": "x", ' >"$tmp/broken.json"
    expect_exit 2 "lesson file $tmp/broken.json is not valid JSON" lesson run "$tmp/broken.json" --db "$db"
    printf '{"title": "t", "text": "x", "checks": [{"id": "c", "name": "n", "measure": {"metric": "loss_varience"}, "theory": 1, "holds": "h", "fails": "f"}]}' >"$tmp/metric.json"
    expect_exit 2 "lesson file $tmp/metric.json: \"checks\[0\]\.measure\.metric\" names an unknown metric 'loss_varience'" \
      lesson run "$tmp/metric.json" --db "$db"
    printf '{"title": "t", "checks": []}' >"$tmp/missing.json"
    expect_exit 2 "lesson file $tmp/missing.json: \"text\" is missing" lesson run "$tmp/missing.json" --db "$db"
    printf '{"title": "t", "text": "x", "config": {"data": "nope"}, "checks": [{"id": "c", "name": "n", "measure": {"metric": "steps"}, "theory": 1, "holds": "h", "fails": "f"}]}' >"$tmp/data.json"
    expect_exit 2 "nope" lesson run "$tmp/data.json" --db "$db" -q
    expect_exit 2 "lesson file $tmp/none.json does not exist" lesson run "$tmp/none.json" --db "$db"
    expect_exit 2 "there is no lesson 99" lesson run 99 --db "$db"
    # Nothing was trained or stored for any of them.
    [ ! -e "$db" ] || [ "$("$cli" list --json --db "$db")" = "[]" ] || fail "a bad lesson stored runs"
    ;;
  bad_prediction)
    max_error_lines=1
    expect_exit 2 "the prediction 'eight' is not a number" lesson run 1 --predict eight --db "$db"
    expect_exit 2 "the prediction 'Only the CNN' is not one of the choices" lesson run 3 --predict "Only the CNN" --db "$db"
    [ ! -e "$db" ] || [ "$("$cli" list --json --db "$db")" = "[]" ] || fail "a refused lesson stored runs"
    ;;
  sigint)
    # Ctrl-C during a lesson: the run under way stops at a window boundary and is stored as
    # stopped, no further run starts, no verdict is given or stored, and the exit is 130.
    "$cli" lesson run 5 --db "$db" -q >"$tmp/out" 2>"$tmp/err" &
    pid=$!
    for _ in $(seq 200); do
      [ -e "$db" ] && "$cli" list --json --db "$db" 2>/dev/null | grep -q '"running"' && break
      sleep 0.05
    done
    kill -INT $pid
    wait $pid
    rc=$?
    [ "$rc" -eq 130 ] || fail "a stopped lesson must exit 130, got $rc ($(cat "$tmp/err"))"
    grep -q "no verdict" "$tmp/err" || fail "no notice: $(cat "$tmp/err")"
    [ ! -s "$tmp/out" ] || fail "a stopped lesson printed a verdict: $(cat "$tmp/out")"
    "$cli" lesson results --json --db "$db" >"$tmp/results" || fail "lesson results failed"
    [ "$(tr -d ' \n' <"$tmp/results")" = "[]" ] || fail "a stopped lesson stored a verdict: $(cat "$tmp/results")"
    "$cli" list --json --db "$db" >"$tmp/runs" || fail "list failed"
    $py - "$tmp/runs" <<'PY' || fail "runs after the stop are wrong: $(head -c 800 "$tmp/runs")"
import json, sys
runs = json.load(open(sys.argv[1]))
assert 1 <= len(runs) < 21, len(runs)  # the sweep's first points only
assert all(r["status"] in ("stopped", "finished") for r in runs), [r["status"] for r in runs]
PY
    ;;
  *) fail "unknown case" ;;
esac
