#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# accumlab-cli is two programs: the store commands run in accumlab-cli, which links no
# LibTorch and no Qt; run, sweep, lesson and report are handed to accumlab-engine beside it.
# Usage: two_programs_test.sh CASE PATH/TO/accumlab-cli
source "$(dirname "$0")/cli_lib.sh"
engine="$(dirname "$cli")/accumlab-engine"

case "$case_name" in
  light)
    # What the dynamic loader maps for accumlab-cli: no LibTorch, no Qt.
    libs="$(ldd "$cli")" || fail "ldd $cli failed"
    if grep -qiE 'libtorch|libc10|libQt' <<<"$libs"; then
      fail "accumlab-cli links LibTorch or Qt: $(grep -iE 'libtorch|libc10|libQt' <<<"$libs" | tr '\n' ' ')"
    fi
    # (Into a variable first: with pipefail, grep -q closing the pipe early would fail ldd.)
    engine_libs="$(ldd "$engine")" || fail "ldd $engine failed"
    grep -q libtorch <<<"$engine_libs" || fail "accumlab-engine does not link LibTorch"
    # Its help names every subcommand, its own and the engine's; report only where the build
    # has the desktop app's UI library that renders it (ACCUMLAB_WITH_REPORT, tests/cli/CMakeLists.txt).
    expect_exit 0 "" --help
    subs="run sweep lesson list show compare export tag note delete"
    if [ "${ACCUMLAB_WITH_REPORT:-1}" = 1 ]; then
      subs="$subs report"
    elif grep -qE "^  report( |$)" "$tmp/out"; then
      fail "--help lists report in a build without it: $(cat "$tmp/out")"
    fi
    for sub in $subs; do
      grep -qE "^  $sub( |$)" "$tmp/out" || fail "--help does not list '$sub': $(cat "$tmp/out")"
    done
    # A subcommand's help and --help-all come from the engine, with every option.
    expect_exit 0 "" run --help
    grep -q -- "--micro-batch" "$tmp/out" || fail "run --help lacks --micro-batch"
    expect_exit 0 "" --help-all
    grep -q -- "--micro-batch" "$tmp/out" && grep -q -- "--target-loss" "$tmp/out" ||
      fail "--help-all lacks the options of run and sweep"
    expect_exit 0 "" --version
    grep -qE '^accumlab-cli [0-9]+\.[0-9]+\.[0-9]+' "$tmp/out" || fail "--version: $(cat "$tmp/out")"
    # The engine's bad input still ends in one sentence and exit 2, through the hand-over.
    expect_exit 2 "micro-batch" run --micro-batch 0 --no-store
    # A run handed over stores as before, in the same process; the store commands read it.
    "$cli" run --data spirals --samples 512 --micro-batch 16 --accum 4 --db "$tmp/runs.sqlite" \
      -q >/dev/null 2>&1 || fail "run failed"
    expect_exit 0 "" list --db "$tmp/runs.sqlite" --json
    [ "$($py -c 'import json,sys; print(len(json.load(sys.stdin)))' <"$tmp/out")" -eq 3 ] ||
      fail "list does not show the 3 arms: $(cat "$tmp/out")"
    ;;
  no_engine)
    # accumlab-cli without its engine: the store commands work, run says what is missing.
    mkdir "$tmp/bin"
    cp "$cli" "$tmp/bin/"
    "$cli" run --data spirals --samples 256 --db "$tmp/runs.sqlite" -q >/dev/null 2>&1 ||
      fail "run failed"
    cli="$tmp/bin/accumlab-cli"
    expect_exit 0 "" list --db "$tmp/runs.sqlite"
    expect_exit 1 "accumlab-engine is missing" run --no-store
    expect_exit 1 "accumlab-engine is missing" --help-all
    ;;
  *) fail "unknown case" ;;
esac
echo "PASS [$case_name]"
