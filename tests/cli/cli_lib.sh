# SPDX-License-Identifier: GPL-3.0-or-later
# Shared set-up of the accumlab-cli end-to-end scripts; sourced with CASE and the CLI's path
# as $1 and $2. Runs are stored by default: XDG_DATA_HOME keeps them out of the user's home.
set -uo pipefail
case_name="$1"
cli="$2"
tmp="$(mktemp -d)"
trap 'chmod -R u+rw "$tmp"; rm -rf "$tmp"' EXIT
export XDG_DATA_HOME="$tmp/xdg"
py=/usr/bin/python3
# Most lines an error may take on stderr (a script may lower it to 1 before expect_exit).
max_error_lines=2

fail() { echo "FAIL [$case_name]: $*" >&2; exit 1; }

# expect_exit CODE PATTERN ARGS… : runs the CLI, checks the exit code (a signal gives 128+N)
# and that stderr holds PATTERN in at most $max_error_lines lines.
expect_exit() {
  local want="$1" pattern="$2"
  shift 2
  "$cli" "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  [ "$got" -eq "$want" ] || fail "exit $got, expected $want for: $* (stderr: $(head -c 400 "$tmp/err"))"
  [ -z "$pattern" ] || grep -qE -- "$pattern" "$tmp/err" ||
    fail "stderr lacks /$pattern/ for: $* (stderr: $(head -c 400 "$tmp/err"))"
  [ "$want" -eq 0 ] || [ "$(wc -l <"$tmp/err")" -le "$max_error_lines" ] ||
    fail "error message is not one line for: $* ($(cat "$tmp/err"))"
}
