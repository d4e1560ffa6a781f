#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The desktop app answers --version and --help with no display at all (no X11, no Wayland, no
# platform plugin named), as a terminal or a package build runs them.
# Usage: app_options_test.sh PATH/TO/accumlab
set -uo pipefail
app="$1"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL [app_options]: $*" >&2; exit 1; }

bare() { env -u DISPLAY -u WAYLAND_DISPLAY QT_QPA_PLATFORM= "$app" "$@" >"$tmp/out" 2>"$tmp/err"; }

bare --version
code=$?
[ "$code" -eq 0 ] || fail "--version exited $code: $(head -c 400 "$tmp/err")"
grep -qE '^accumlab [0-9]+\.[0-9]+\.[0-9]+' "$tmp/out" || fail "--version said: $(cat "$tmp/out")"

bare --help
code=$?
[ "$code" -eq 0 ] || fail "--help exited $code: $(head -c 400 "$tmp/err")"
grep -q '^Usage: .*accumlab \[options\]' "$tmp/out" || fail "--help said: $(head -c 400 "$tmp/out")"
grep -q -- '--screenshot <FILE>' "$tmp/out" || fail "--help lacks the options: $(head -c 400 "$tmp/out")"
echo "PASS [app_options]"
