#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# A model file that crashes LibTorch's loader or exhausts its memory (the fuzzer's findings in
# tests/fuzz/findings/torchscript/) loads first in a child process with limits: accumlab-cli
# exits 2 with one sentence naming the file, never a signal or exit 1, and stores nothing.
# Usage: model_check_test.sh CASE PATH/TO/accumlab-cli FINDINGS_DIR
source "$(dirname "$0")/cli_lib.sh"
findings="$3"
max_error_lines=1

case "$case_name" in
  findings)
    n=0
    for f in "$findings"/*.pt; do
      # The reason may be the loader's own message (it names the file too).
      expect_exit 2 "^accumlab-cli: $f (is not a loadable TorchScript model: the loader (crashed \(signal [0-9]+\)|ran out of its 2 GiB of memory|took longer than 30 s)|is not a TorchScript archive)" \
        run --data blobs:64 --model "torchscript:$f" --samples 64 --no-store
      # With a store: no run is recorded for a model that never loaded.
      expect_exit 2 "$f" run --data blobs:64 --model "torchscript:$f" --samples 64 --db "$tmp/runs.sqlite"
      n=$((n + 1))
    done
    [ "$n" -ge 2 ] || fail "only $n findings in $findings"
    if [ -e "$tmp/runs.sqlite" ]; then
      "$cli" list --db "$tmp/runs.sqlite" >"$tmp/list" 2>&1 || fail "list failed: $(cat "$tmp/list")"
      ! grep -q torchscript "$tmp/list" || fail "a run of a bad model was stored: $(cat "$tmp/list")"
    fi
    ;;
  *) fail "unknown case" ;;
esac
echo "PASS [$case_name]"
