#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# A model file that crashes LibTorch's loader, exhausts its memory, holds tensors past the end
# of their records or computes different outputs for one input (the fuzzer's findings and the
# truncated archives of tests/fuzz/truncate_records.py in tests/fuzz/findings/torchscript/, and
# models written here) is checked first in a child process with limits: accumlab-cli exits 2
# with one sentence naming the file, never a signal or exit 1, and stores nothing.
# Usage: model_check_test.sh CASE PATH/TO/accumlab-cli FINDINGS_DIR
source "$(dirname "$0")/cli_lib.sh"
findings="$3"
max_error_lines=1

case "$case_name" in
  findings)
    n=0
    for f in "$findings"/*.pt; do
      # The reason may be the loader's own message (it names the file too).
      expect_exit 2 "^accumlab-cli: $f (is not a loadable TorchScript model: the loader (crashed \(signal [0-9]+\)|ran out of its 2 GiB of memory|took longer than 30 s)|is not a TorchScript archive|is not a usable TorchScript model: .* needs [0-9,]+ bytes but its record holds [0-9,]+)" \
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
  truncated)
    # Each record cut short names the tensor, the bytes it needs and the bytes its record holds.
    save="; save it again from Python with torch.jit.script\\(model\\)\\.save\\(path\\)$"
    while read -r file kind tensor needs holds; do
      f="$findings/$file"
      [ -f "$f" ] || fail "missing $f: make it with tests/fuzz/truncate_records.py"
      expect_exit 2 "^accumlab-cli: $f is not a usable TorchScript model: $kind $tensor needs $needs bytes but its record holds $holds$save" \
        run --data blobs:64 --model "torchscript:$f" --samples 64 --no-store
    done <<'CASES'
truncated-every-record.pt parameter fc1.weight 6,144 3,072
truncated-buffer-record.pt buffer bn.running_var 64 32
truncated-view-record.pt buffer tail 400 300
CASES
    ;;
  repeatable)
    # A model whose output depends on how often it was called is refused; the same model
    # without the counter trains.
    # TorchScript reads the module's source: the script is a file, not stdin.
    cat >"$tmp/models.py" <<'PY'
import sys, torch, torch.nn as nn
class Counting(nn.Module):
    def __init__(self, counts: bool):
        super().__init__()
        self.counts = counts
        self.fc = nn.Linear(64, 10)
        self.register_buffer("calls", torch.zeros(1))
    def forward(self, x):
        if self.counts:
            self.calls.add_(1)
        return self.fc(x) * (1 + self.calls)
torch.jit.script(Counting(True)).save(sys.argv[1] + "/counting.pt")
torch.jit.script(Counting(False)).save(sys.argv[1] + "/steady.pt")
PY
    "$py" "$tmp/models.py" "$tmp" || fail "cannot write the models"
    expect_exit 2 "^accumlab-cli: $tmp/counting.pt is not a usable TorchScript model: two forward passes of one sample with the same seed gave different outputs \(largest difference [0-9.e+-]+\); a model's output must depend only on its input and weights" \
      run --data blobs:64 --model "torchscript:$tmp/counting.pt" --samples 64 --no-store
    expect_exit 0 "" run --data blobs:64 --model "torchscript:$tmp/steady.pt" --samples 64 --no-store
    ;;
  memory)
    # A forward pass that allocates far past the check's 2 GiB is stopped there, also under
    # AddressSanitizer (whose shadow memory no address-space limit leaves room for).
    cat >"$tmp/model.py" <<'PY'
import sys, torch, torch.nn as nn
class Greedy(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(64, 10)
    def forward(self, x):
        big = torch.ones(1 << 30)  # 4 GiB, every page written
        return self.fc(x) + big[:10]
torch.jit.script(Greedy()).save(sys.argv[1] + "/greedy.pt")
PY
    "$py" "$tmp/model.py" "$tmp" || fail "cannot write the model"
    start=$(date +%s)
    expect_exit 2 "^accumlab-cli: $tmp/greedy.pt is not a loadable TorchScript model: the loader ran out of its 2 GiB of memory" \
      run --data blobs:64 --model "torchscript:$tmp/greedy.pt" --samples 64 --no-store
    [ $(( $(date +%s) - start )) -lt 30 ] || fail "the check was not stopped before its time limit"
    ;;
  *) fail "unknown case" ;;
esac
echo "PASS [$case_name]"
