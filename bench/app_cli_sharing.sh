#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The desktop app and the command line on one run database, as a user would use them: the
# app trains (under xvfb) while, ROUNDS times, `accumlab-cli list`, `export` and a short
# `run` use the same file. After every round: no descriptor of the app points to a deleted
# file, PRAGMA integrity_check is ok, and the app's runs have gained rows (it still writes).
# Usage: bench/app_cli_sharing.sh BUILD_DIR [ROUNDS]   (default 20)
set -uo pipefail
build="${1:?usage: app_cli_sharing.sh BUILD_DIR [ROUNDS]}"
rounds="${2:-20}"
app="$build/app/gui/accumlab"
cli="$build/app/cli/accumlab-cli"
tmp="$(mktemp -d)"
trap 'kill $app_pid 2>/dev/null; rm -rf "$tmp"' EXIT
db="$tmp/runs.sqlite"
export XDG_CONFIG_HOME="$tmp/config" XDG_DATA_HOME="$tmp/data"

xvfb-run -a "$app" --fresh --run --data spirals --samples 50000000 --db "$db" --quit-after 600 \
  >"$tmp/app.log" 2>&1 &
for _ in $(seq 300); do
  app_pid=$(pgrep -n -f "$app --fresh --run" || true)
  [ -n "$app_pid" ] && [ -e "$db" ] && "$cli" list --json --db "$db" 2>/dev/null | grep -q '"running"' && break
  sleep 0.1
done
[ -n "${app_pid:-}" ] || { echo "the app did not start"; exit 1; }

app_steps() {
  /usr/bin/python3 - "$db" <<'PY'
import sqlite3, sys
con = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
print(con.execute("SELECT coalesce(max(steps), 0) FROM runs WHERE experiment_id = 1").fetchone()[0])
PY
}

ok=0
for round in $(seq "$rounds"); do
  before=$(app_steps)
  "$cli" list --db "$db" >/dev/null 2>"$tmp/err" || { echo "round $round: list failed: $(cat "$tmp/err")"; continue; }
  "$cli" export 1 --format csv --out "$tmp/export.csv" --db "$db" 2>"$tmp/err" || { echo "round $round: export failed: $(cat "$tmp/err")"; continue; }
  "$cli" run --data spirals --samples 2000 --probe-repeats 0 -q --db "$db" >/dev/null 2>"$tmp/err" || { echo "round $round: run failed: $(cat "$tmp/err")"; continue; }
  sleep 0.5
  deleted=$(ls -l /proc/"$app_pid"/fd 2>/dev/null | grep -c "runs.sqlite.*(deleted)")
  integrity=$(/usr/bin/python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('PRAGMA integrity_check').fetchone()[0])" "$db")
  after=$(app_steps)
  if [ "$deleted" -eq 0 ] && [ "$integrity" = ok ] && [ "$after" -gt "$before" ]; then
    ok=$((ok + 1))
  else
    echo "round $round: deleted descriptors $deleted, integrity $integrity, app steps $before → $after"
  fi
done
kill -TERM "$app_pid"
wait 2>/dev/null
statuses=$("$cli" list --json --db "$db" | /usr/bin/python3 -c "import json,sys; print(sorted({r['status'] for r in json.load(sys.stdin)}))")
echo "$ok/$rounds rounds intact (no deleted descriptor, integrity ok, the app still writing); runs at the end: $statuses"
[ "$ok" -eq "$rounds" ]
