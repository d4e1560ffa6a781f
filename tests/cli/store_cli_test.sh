#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# End-to-end tests of the run store's commands. Usage: store_cli_test.sh CASE PATH/TO/accumlab-cli
source "$(dirname "$0")/cli_lib.sh"
here="$(cd "$(dirname "$0")" && pwd)"

# A small finished run of SAMPLES ($2, default 1024) stored in DB ($1).
store_run() {
  "$cli" run --samples "${2:-1024}" -q --db "$1" >/dev/null 2>"$tmp/err" || fail "run failed: $(cat "$tmp/err")"
}

sha() { sha256sum "$1" | cut -d' ' -f1; }

case "$case_name" in
  commands)
    db="$XDG_DATA_HOME/AccumLab/runs.sqlite"
    "$cli" run --samples 2048 --data blobs --lr 0.05 -q --json >"$tmp/run.json" 2>"$tmp/err" || fail "run: $(cat "$tmp/err")"
    grep -q "^Storing as experiment 1 (runs 1 no-accum, 2 accum, 3 big-batch) in $db" "$tmp/err" \
      || fail "run did not announce its ids: $(cat "$tmp/err")"
    [ -f "$db" ] || fail "no DB at the default path $db"
    $py - "$tmp/run.json" <<'PY' || fail "run --json lacks the store ids"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["store"]["experiment_id"] == 1 and s["store"]["run_ids"] == {"no-accum": 1, "accum": 2, "big-batch": 3}, s["store"]
PY
    "$cli" run --samples 1024 --lr 0.2 --arms accum -q >"$tmp/table" 2>/dev/null || fail "second run failed"
    grep -q "Stored as experiment 2 (runs 4 accum)" "$tmp/table" || fail "table output lacks the ids: $(cat "$tmp/table")"
    "$cli" run --samples 256 --no-store -q --json >"$tmp/nostore.json" || fail "--no-store run failed"
    grep -q '"store"' "$tmp/nostore.json" && fail "--no-store run reported a store"

    expect_exit 0 "" list --json
    $py - "$tmp/out" <<'PY' || fail "list --json is wrong: $(head -c 800 "$tmp/out")"
import json, sys
runs = json.load(open(sys.argv[1]))
assert [r["id"] for r in runs] == [4, 3, 2, 1], [r["id"] for r in runs]
by_id = {r["id"]: r for r in runs}
assert by_id[1]["arm"] == "no-accum" and by_id[1]["micro_batch"] == 8 and by_id[1]["accum"] == 1
assert by_id[3]["arm"] == "big-batch" and by_id[3]["micro_batch"] == 64
assert by_id[2]["steps"] == 2048 // 64 and by_id[2]["samples_seen"] == 2048
for r in runs:
    assert r["status"] == "finished" and r["final_loss"] > 0 and 0 <= r["val_accuracy"] <= 1, r
    assert (r["last_micro_batch"], r["last_accum"]) == (r["micro_batch"], r["accum"]), r
PY
    expect_exit 0 "" list
    head -1 "$tmp/out" | grep -qE "^id +started +dataset +model +arm +m×K +status +final loss +val acc" || fail "list header: $(head -1 "$tmp/out")"
    [ "$(wc -l <"$tmp/out")" -eq 5 ] || fail "list should show 4 runs: $(cat "$tmp/out")"
    expect_exit 0 "" list --dataset blobs --status finished --limit 2 --json
    [ "$($py -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$tmp/out")" = 2 ] || fail "filters: $(cat "$tmp/out")"

    expect_exit 0 "" tag 2 baseline sweep
    expect_exit 0 "" tag 2 sweep --remove
    expect_exit 0 "" list --tag baseline --json
    grep -q '"id": 2' "$tmp/out" && [ "$(grep -c '"id":' "$tmp/out")" -eq 1 ] || fail "tag filter: $(cat "$tmp/out")"
    expect_exit 0 "" note 2 "the accum arm, for the slides"
    expect_exit 0 "" show 2
    for want in "Run 2: arm accum of experiment 1" "status    finished" "the accum arm, for the slides" \
                "baseline" '"micro_batch": 8' "final train loss" "training time of this arm" \
                "wall time of the run"; do
      grep -qF -- "$want" "$tmp/out" || fail "show lacks '$want': $(head -c 1500 "$tmp/out")"
    done
    expect_exit 0 "" show 2 --json
    $py -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["config"]["data"]=="blobs" and d["summary"]["steps"]==32 and d["note"]' "$tmp/out" \
      || fail "show --json: $(head -c 600 "$tmp/out")"

    expect_exit 0 "" compare 2 4
    grep -qE "final train loss .*\(×[0-9.]+\)" "$tmp/out" || fail "compare lacks ratios: $(cat "$tmp/out")"
    grep -qE "^optimizer.lr +0.05 +0.2" "$tmp/out" || fail "compare lacks the config diff: $(cat "$tmp/out")"
    grep -qE "^training time of the arm \(s\) " "$tmp/out" || fail "compare says what its time is: $(cat "$tmp/out")"
    expect_exit 0 "" compare 1 2 3
    grep -q "The configs are identical" "$tmp/out" || fail "arms of one experiment share a config"
    # The same (detrended) loss variance as run's table and the report, not the plain one.
    grep -qE "^loss var \(detrended\) " "$tmp/out" || fail "compare lacks the detrended loss variance: $(cat "$tmp/out")"
    ! grep -qE "^loss variance " "$tmp/out" || fail "compare shows the plain loss variance as the headline"

    expect_exit 0 "" export 1 2 --format csv --out "$tmp/runs.csv"
    $py - "$tmp/runs.csv" <<'PY' || fail "CSV export is wrong: $(head -c 600 "$tmp/runs.csv")"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert list(rows[0])[:5] == ["run_id", "arm", "step", "samples_seen", "wall_ms"], list(rows[0])[:5]
steps = [r for r in rows if r["loss"] != ""]
assert sum(r["run_id"] == "1" for r in steps) == 2048 // 8
assert sum(r["run_id"] == "2" for r in steps) == 2048 // 64
assert all(float(r["loss"]) > 0 for r in steps)
assert any(r["val_accuracy"] != "" for r in rows)
PY
    expect_exit 0 "" export 2 --out "$tmp/run.json"
    $py - "$tmp/run.json" <<'PY' || fail "JSON export is wrong"
import json, sys
d = json.load(open(sys.argv[1]))
r = d["runs"][0]
assert r["id"] == 2 and r["tags"] == ["baseline"] and r["config"]["data"] == "blobs"
assert len(r["metrics"]["step"]) == 32 and len(r["metrics"]["loss"]) == 32
assert r["summary"]["status"] == "finished"
PY
    expect_exit 2 "add --yes" delete 4
    expect_exit 0 "" delete 4 --yes
    expect_exit 0 "" list --json
    [ "$(grep -c '"id":' "$tmp/out")" -eq 3 ] || fail "run 4 not deleted"

    expect_exit 2 "'abc' is not a run id" show abc
    expect_exit 2 "no run 999 in" show 999
    expect_exit 2 "no run 999 in" export 1 999 --out "$tmp/x.csv"
    [ -e "$tmp/x.csv" ] && fail "a failed export left a file"
    expect_exit 2 "no run 999 in" delete 1 999 --yes
    expect_exit 2 "no run database at $tmp/none.sqlite" list --db "$tmp/none.sqlite"
    expect_exit 2 "pass --format csv, --format json or --format tensorboard" export 1 --out "$tmp/x.txt"
    expect_exit 2 "format 'xlsx'" export 1 --format xlsx --out "$tmp/x.txt"
    expect_exit 2 "status 'bogus'" list --status bogus
    expect_exit 2 "cannot write the export file" export 1 --out "$tmp/no/folder/x.csv"
    expect_exit 2 "" run --db "$tmp/a.sqlite" --no-store --samples 64
    ;;

  errors)
    # The store file given as the dataset or model: refused before anything reads it (reading
    # it behind SQLite's back would drop this process's locks on it).
    store_run "$tmp/own.sqlite"
    before="$(sha "$tmp/own.sqlite")"
    expect_exit 2 "dataset file .*own.sqlite is the run database" run --data "csv:$tmp/own.sqlite" --db "$tmp/own.sqlite" --samples 64 -q
    expect_exit 2 "model file .*own.sqlite is the run database" run --model "torchscript:$tmp/own.sqlite" --db "$tmp/own.sqlite" --samples 64 -q
    expect_exit 2 "is the run database" sweep --data "csv:$tmp/own.sqlite" --db "$tmp/own.sqlite" -B 8,16 --target-loss 0.5
    [ "$(sha "$tmp/own.sqlite")" = "$before" ] || fail "a refused run changed the store"
    # Read-only: reading works, writing is a clear error, and the file is unchanged.
    store_run "$tmp/ro.sqlite"
    chmod 0444 "$tmp/ro.sqlite"
    before="$(sha "$tmp/ro.sqlite")"
    expect_exit 2 "ro.sqlite is read-only" run --samples 256 -q --db "$tmp/ro.sqlite"
    expect_exit 0 "" list --db "$tmp/ro.sqlite"
    expect_exit 2 "ro.sqlite is read-only" tag 1 x --db "$tmp/ro.sqlite"
    [ "$(sha "$tmp/ro.sqlite")" = "$before" ] || fail "read-only file changed"

    # Not SQLite at all.
    printf 'step,loss\n1,0.5\n' >"$tmp/notes.sqlite"
    before="$(sha "$tmp/notes.sqlite")"
    expect_exit 2 "notes.sqlite is not an SQLite database" list --db "$tmp/notes.sqlite"
    expect_exit 2 "notes.sqlite is not an SQLite database" run --samples 256 -q --db "$tmp/notes.sqlite"
    [ "$(sha "$tmp/notes.sqlite")" = "$before" ] || fail "non-SQLite file changed"

    # Corrupt pages behind a valid header.
    store_run "$tmp/bad.sqlite" 4096
    $py - "$tmp/bad.sqlite" <<'PY'
import os, sys
size = os.path.getsize(sys.argv[1])
with open(sys.argv[1], "r+b") as f:
    f.seek(4096)
    f.write(bytes((i * 7919 >> 3) & 0xFF for i in range(size - 4096)))
PY
    expect_exit 2 "bad.sqlite is corrupt" export 1 --db "$tmp/bad.sqlite" --out "$tmp/bad.csv"

    # A newer schema is refused and never modified.
    store_run "$tmp/new.sqlite"
    $py -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("PRAGMA user_version=99"); c.commit(); c.execute("PRAGMA journal_mode=DELETE"); c.close()' "$tmp/new.sqlite"
    before="$(sha "$tmp/new.sqlite")"
    expect_exit 2 "new.sqlite was written by a newer AccumLab \(schema version 99" list --db "$tmp/new.sqlite"
    expect_exit 2 "newer AccumLab" run --samples 256 -q --db "$tmp/new.sqlite"
    [ "$(sha "$tmp/new.sqlite")" = "$before" ] || fail "newer-schema file changed"

    # Locked by another writer: a writer waits the busy timeout (5 s) three times in all, so
    # a lock held 7 s only delays a run, and one held past 15 s ends it with a clear error.
    store_run "$tmp/locked.sqlite"
    hold_lock() {  # hold_lock SECONDS: an exclusive write lock, held in the background until
      # SECONDS have passed or locked.release exists
      rm -f "$tmp/locked.ready" "$tmp/locked.release"
      $py - "$tmp/locked.sqlite" "$tmp/locked.ready" "$1" "$tmp/locked.release" <<'PY' &
import os, sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("BEGIN EXCLUSIVE")
c.execute("UPDATE runs SET name = 'held'")
open(sys.argv[2], "w").close()
end = time.monotonic() + float(sys.argv[3])
while time.monotonic() < end and not os.path.exists(sys.argv[4]):
    time.sleep(0.05)
c.execute("ROLLBACK")
PY
      holder=$!
      for _ in $(seq 100); do [ -e "$tmp/locked.ready" ] && break; sleep 0.1; done
    }
    hold_lock 7
    expect_exit 0 "" run --samples 256 -q --db "$tmp/locked.sqlite"
    wait "$holder"
    hold_lock 60  # until the run has given up and a reader has read
    expect_exit 2 "locked.sqlite is locked by another program" run --samples 256 -q --db "$tmp/locked.sqlite"
    grep -q "database is locked" "$tmp/err" && fail "SQLite's raw message reached the user: $(cat "$tmp/err")"
    expect_exit 0 "" list --db "$tmp/locked.sqlite" --json  # readers are not blocked
    touch "$tmp/locked.release"
    wait "$holder"
    expect_exit 0 "" list --db "$tmp/locked.sqlite" --json
    [ "$(grep -c '"id":' "$tmp/out")" -eq 6 ] || fail "locked DB lost or gained runs"

    # Full disk: a file-size limit stops the writes; the rows stored before survive. The model
    # is wide enough that a commit's rows (a quarter second's) stay well under the limit: a
    # faster engine once put the first commit past it, and nothing was stored before.
    (
      trap '' XFSZ
      ulimit -f 400  # 200 KiB
      "$cli" run --data spirals --model mlp:512,512 --samples 60000 -q --db "$tmp/full.sqlite" \
        >"$tmp/out" 2>"$tmp/err"
      echo $? >"$tmp/full.rc"
    )
    [ "$(cat "$tmp/full.rc")" = 2 ] || fail "full disk: exit $(cat "$tmp/full.rc"), expected 2: $(cat "$tmp/err")"
    grep -qE "full.sqlite (cannot grow|could not be written).*(disk is full|free space)" "$tmp/err" \
      || fail "full disk message: $(cat "$tmp/err")"
    expect_exit 0 "" list --db "$tmp/full.sqlite" --json
    $py - "$tmp/full.sqlite" <<'PY' || fail "full disk left a broken file"
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
assert c.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
assert c.execute("SELECT count(*) FROM step_metrics").fetchone()[0] > 0
PY
    ;;

  merge)
    # Two stores made apart come home into a third: every run with its rows and new ids, once.
    store_run "$tmp/a.sqlite" 1024
    store_run "$tmp/b.sqlite" 512
    store_run "$tmp/home.sqlite" 256
    before="$(sha "$tmp/a.sqlite")"
    expect_exit 0 "" merge "$tmp/a.sqlite" "$tmp/b.sqlite" --db "$tmp/home.sqlite" --json
    $py - "$tmp/out" "$tmp/a.sqlite" "$tmp/home.sqlite" <<'PY' || fail "merge --json or the merged store is wrong: $(head -c 800 "$tmp/out")"
import json, sqlite3, sys
out = json.load(open(sys.argv[1]))
a, b = out["sources"]
assert a["runs_added"] == 3 and b["runs_added"] == 3 and a["experiments_added"] == 1, out
assert [r["id"] for r in a["runs"]] == [4, 5, 6] and [r["id"] for r in b["runs"]] == [7, 8, 9], out
src, home = sqlite3.connect(sys.argv[2]), sqlite3.connect(sys.argv[3])
q = "SELECT r.uid, s.step, s.loss FROM step_metrics s JOIN runs r ON r.id = s.run_id WHERE r.uid = ? ORDER BY s.step"
for run in a["runs"]:
    assert src.execute(q, (run["uid"],)).fetchall() == home.execute(q, (run["uid"],)).fetchall(), run
assert home.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
PY
    [ "$(sha "$tmp/a.sqlite")" = "$before" ] || fail "merge changed a source"
    expect_exit 0 "" merge "$tmp/a.sqlite" --db "$tmp/home.sqlite"
    grep -q "0 runs added (0 step rows), 3 already there" "$tmp/out" || fail "merging again: $(cat "$tmp/out")"
    expect_exit 0 "" list --db "$tmp/home.sqlite" --json
    [ "$(grep -c '"id":' "$tmp/out")" -eq 9 ] || fail "merging twice added runs: $(cat "$tmp/out")"
    # A new destination is created; refusals are one sentence, exit 2, nothing written.
    expect_exit 0 "" merge "$tmp/b.sqlite" --db "$tmp/new.sqlite"
    grep -q "^Merged 1 store into $tmp/new.sqlite" "$tmp/out" || fail "merge into a new store: $(cat "$tmp/out")"
    printf 'step,loss\n1,0.5\n' >"$tmp/notes.sqlite"
    before="$(sha "$tmp/home.sqlite")"
    expect_exit 2 "notes.sqlite is not an SQLite database" merge "$tmp/a.sqlite" "$tmp/notes.sqlite" --db "$tmp/home.sqlite"
    expect_exit 2 "no run store at $tmp/none.sqlite" merge "$tmp/none.sqlite" --db "$tmp/home.sqlite"
    cp "$tmp/b.sqlite" "$tmp/newer.sqlite"
    $py -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("PRAGMA user_version = 99"); c.commit()' "$tmp/newer.sqlite"
    expect_exit 2 "newer.sqlite was written by a newer AccumLab \(schema version 99" merge "$tmp/newer.sqlite" --db "$tmp/home.sqlite"
    expect_exit 2 "is the destination store itself" merge "$tmp/home.sqlite" --db "$tmp/home.sqlite"
    expect_exit 0 "" list --db "$tmp/home.sqlite" --json
    [ "$(grep -c '"id":' "$tmp/out")" -eq 9 ] || fail "a refused merge added runs"
    ;;

  kill)
    $py "$here/store_kill_test.py" "$cli" --repeat 5 || fail "kill test"
    ;;
  *) fail "unknown case" ;;
esac
echo "PASS [$case_name]"
