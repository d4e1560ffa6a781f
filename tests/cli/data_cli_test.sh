#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# End-to-end tests of accumlab-cli with real datasets and models: Fashion-MNIST, CSV,
# TorchScript, and every kind of bad file (exit code 2, one sentence, never a signal).
# Usage: data_cli_test.sh CASE PATH/TO/accumlab-cli
source "$(dirname "$0")/cli_lib.sh"
max_error_lines=1
fashion=/usr/share/datasets/fashion-mnist

# Writes the bad dataset files of the issue into $tmp/bad (IDX folders, CIFAR, CSV).
make_bad_files() {
  "$py" - "$tmp/bad" <<'PY' || fail "could not write the test files"
import gzip, os, struct, sys
root = sys.argv[1]
def idx(dims, data, magic3=None):
    return bytes([0, 0, 8, magic3 if magic3 is not None else len(dims)]) + b"".join(struct.pack(">I", d) for d in dims) + data
def folder(name, images=None, labels=None, gz=True):
    d = os.path.join(root, name); os.makedirs(d)
    images = images if images is not None else idx([6, 4, 4], bytes(range(96)))
    labels = labels if labels is not None else idx([6], bytes([0, 1, 2, 0, 1, 2]))
    for stem, blob in (("train-images-idx3-ubyte", images), ("train-labels-idx1-ubyte", labels)):
        if gz:
            open(os.path.join(d, stem + ".gz"), "wb").write(gzip.compress(blob))
        else:
            open(os.path.join(d, stem), "wb").write(blob)
    return d
folder("good")
d = folder("empty"); open(os.path.join(d, "train-images-idx3-ubyte.gz"), "wb").close()
d = folder("truncated"); p = os.path.join(d, "train-images-idx3-ubyte.gz")
whole = gzip.compress(idx([600, 16, 16], os.urandom(600 * 256))); open(p, "wb").write(whole[: len(whole) // 2])
folder("gz_of_text", images=b"this is not an image file, just some text\n" * 10)
folder("wrong_magic", images=b"\x00\x00\x08\x02" + bytes(100), gz=False)
folder("dims", images=idx([6, 4, 4], bytes(90)), gz=False)
folder("count", labels=idx([5], bytes([0, 1, 2, 0, 1])))
folder("one_class", labels=idx([6], bytes([3] * 6)))
c = os.path.join(root, "cifar"); os.makedirs(c)
open(os.path.join(c, "data_batch_1.bin"), "wb").write(bytes(3073 * 2 + 17))
def text(name, body): open(os.path.join(root, name), "w").write(body)
text("ragged.csv", "a,b,y\n1,2,0\n3,4,1\n5,6\n")
text("word.csv", "a,b,y\n1,2,0\n3,four,1\n")
text("ok.csv", "a,b,y\n1,2,0\n3,4,1\n5,6,0\n7,8,1\n")
text("one_class.csv", "a,b,y\n1,2,cat\n3,4,cat\n5,6,cat\n")
PY
}

# Writes TorchScript models into $tmp (needs Debian's python3-torch). torch.jit.script reads
# the classes' source, so the generator runs from a file, not from stdin.
make_models() {
  cat >"$tmp/gen.py" <<'PY'
import sys, torch, torch.nn as nn
out = sys.argv[1]
class Mlp(nn.Module):
    def __init__(self, inputs: int, outputs: int):
        super().__init__()
        self.net = nn.Sequential(nn.Flatten(), nn.Linear(inputs, 32), nn.ReLU(), nn.Linear(32, outputs))
    def forward(self, x):
        return self.net(x)
class NoForward(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)
    @torch.jit.export
    def predict(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(x)
class Dropout(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Flatten(), nn.Linear(64, 32), nn.ReLU(), nn.Dropout(0.2), nn.Linear(32, 10))
    def forward(self, x):
        return self.net(x)
torch.manual_seed(0)
torch.jit.script(Mlp(64, 10)).save(out + "/mlp.pt")
torch.jit.script(Dropout()).save(out + "/dropout.pt")
torch.jit.script(Mlp(64, 3)).save(out + "/three.pt")
torch.jit.script(NoForward()).save(out + "/no_forward.pt")
torch.save(Mlp(64, 10).state_dict(), out + "/weights.pt")
PY
  "$py" "$tmp/gen.py" "$tmp" || fail "could not script the test models"
}

case "$case_name" in
  bad_data_files)
    make_bad_files
    b="$tmp/bad"
    expect_exit 0 "" run --data "idx:$b/good" --model logreg --samples 64 --val-fraction 0.34 -q
    expect_exit 2 "train-images-idx3-ubyte.gz is empty" run --data "idx:$b/empty" --samples 64
    expect_exit 2 "is a truncated gzip file" run --data "idx:$b/truncated" --samples 64
    expect_exit 2 "is not an IDX file: it starts with bytes '74 68 69 73'" run --data "idx:$b/gz_of_text" --samples 64
    expect_exit 2 "has 2 dimension\(s\) \(IDX magic '00 00 08 02'\), but images need 3" run --data "idx:$b/wrong_magic" --samples 64
    expect_exit 2 "header announces 6x4x4 = 96 bytes of images, but the file holds only 106 bytes" run --data "idx:$b/dims" --samples 64
    expect_exit 2 "holds 6 images but .* holds 5 labels" run --data "idx:$b/count" --samples 64
    expect_exit 2 "has only one class" run --data "idx:$b/one_class" --samples 64
    expect_exit 2 "data_batch_1.bin is 6163 bytes long, not a whole number of 3073-byte CIFAR-10 records" run --data "cifar10:$b/cifar" --samples 64
    expect_exit 2 "ragged.csv line 4 has 2 cells, but line 1 has 3" run --data "csv:$b/ragged.csv" --samples 64
    expect_exit 2 "word.csv line 3, column 'b' \(index 1\): 'four' is not a number" run --data "csv:$b/word.csv" --samples 64
    expect_exit 2 "ok.csv has no label column 'target' \(its columns are a, b, y" run --data "csv:$b/ok.csv" --label target --samples 64
    expect_exit 2 "one class only \('cat'\)" run --data "csv:$b/one_class.csv" --samples 64
    expect_exit 2 "$b/nothing.csv does not exist" run --data "csv:$b/nothing.csv" --samples 64
    expect_exit 2 "IDX folder $b/nothing does not exist" run --data "idx:$b/nothing" --samples 64
    expect_exit 2 "$b is a folder; a CSV dataset must be a file" run --data "csv:$b" --samples 64
    if [ "$(id -u)" -ne 0 ]; then  # root reads any file: the permission case needs a user
      chmod 000 "$b/ok.csv"
      expect_exit 2 "ok.csv cannot be read" run --data "csv:$b/ok.csv" --samples 64
    fi
    ;;
  special_files)
    # Only regular files are read: a FIFO would wait for a writer for ever and /dev/zero never
    # ends. Each is refused by name at once; `timeout` turns a hang into a failure.
    mkfifo "$tmp/pipe"
    for spec in "text:$tmp/pipe" "csv:$tmp/pipe" text:/dev/zero csv:/dev/zero; do
      kind="is a named pipe \(FIFO\), not a regular file"
      case "$spec" in *zero) kind="is a character device, not a regular file" ;; esac
      timeout 20 "$cli" run --data "$spec" --model charlm --samples 64 >"$tmp/out" 2>"$tmp/err"
      got=$?
      [ "$got" -eq 2 ] || fail "exit $got, expected 2 for --data $spec ($(head -c 400 "$tmp/err"))"
      grep -qE -- "$kind" "$tmp/err" || fail "no refusal by name for $spec: $(head -c 400 "$tmp/err")"
    done
    expect_exit 2 "$tmp/pipe is a named pipe \(FIFO\)" run --config "$tmp/pipe" --samples 64
    expect_exit 2 "$tmp/pipe is a named pipe \(FIFO\)" run --data blobs:64 --model "torchscript:$tmp/pipe" --samples 64
    ;;
  bad_models)
    make_models
    echo "not a model" >"$tmp/text.pt"
    expect_exit 2 "text.pt is not a TorchScript archive" run --data blobs:64 --model "torchscript:$tmp/text.pt" --samples 64
    expect_exit 2 "weights.pt is not a TorchScript archive .*torch.jit.script" run --data blobs:64 --model "torchscript:$tmp/weights.pt" --samples 64
    expect_exit 2 "no_forward.pt has no forward method" run --data blobs:64 --model "torchscript:$tmp/no_forward.pt" --samples 64
    expect_exit 2 "outputs \[1x3\] per sample but dataset 'blobs' needs \[1x10\]" run --data blobs:64 --model "torchscript:$tmp/three.pt" --samples 64
    expect_exit 2 "cannot take samples of shape \[32\] from dataset 'blobs' \(.*1x32 and 64x32" run --data blobs:32 --model "torchscript:$tmp/mlp.pt" --samples 64
    expect_exit 2 "$tmp/missing.pt does not exist" run --data blobs:64 --model "torchscript:$tmp/missing.pt" --samples 64
    ;;
  torchscript_run)
    make_models
    "$cli" run --data blobs:64 --model "torchscript:$tmp/mlp.pt" --arms accum,big-batch -m 16 -k 8 \
      --samples 12800 --json -q >"$tmp/out" 2>"$tmp/err" || fail "run failed: $(cat "$tmp/err")"
    "$py" - "$tmp/out" <<'PY' || fail "TorchScript run is wrong: $(head -c 600 "$tmp/out")"
import json, sys
s = json.load(open(sys.argv[1]))
a, b = s["arms"]["accum"], s["arms"]["big-batch"]
assert a["status"] == b["status"] == "finished" and a["steps"] == b["steps"] == 100, (a, b)
assert a["equivalence_rel_diff"] <= 1e-5, a["equivalence_rel_diff"]
assert a["val_accuracy"] > 0.5, a["val_accuracy"]
assert s["model"].startswith("torchscript:") and "2410 parameters" in s["model"], s["model"]
assert not a["stochastic"] and not a["batch_dependent"], a
PY
    # A model with dropout: flagged, announced, and reproducible from the seed.
    for i in 1 2; do
      "$cli" run --data blobs:64 --model "torchscript:$tmp/dropout.pt" -m 8 -k 4 --samples 3200 \
        --dtype float64 --json --no-store >"$tmp/drop$i" 2>"$tmp/drop$i.err" \
        || fail "dropout run failed: $(cat "$tmp/drop$i.err")"
    done
    grep -q "random layers (dropout).*differ by their masks, not by accumulation" "$tmp/drop1.err" \
      || fail "the dropout run does not say why accum and big-batch differ: $(cat "$tmp/drop1.err")"
    "$py" - "$tmp/drop1" "$tmp/drop2" <<'PY' || fail "dropout runs differ: $(head -c 600 "$tmp/drop1")"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for arm in ("no-accum", "accum", "big-batch"):
    assert a["arms"][arm]["stochastic"] is True, a["arms"][arm]
    for key in ("final_train_loss", "val_loss", "loss_variance", "steps"):
        assert a["arms"][arm][key] == b["arms"][arm][key], (arm, key, a["arms"][arm][key], b["arms"][arm][key])
PY
    ;;
  csv_run)
    "$py" - "$tmp/iris.csv" <<'PY'
import math, random, sys
random.seed(1)
with open(sys.argv[1], "w") as f:
    f.write("length;width;species\n")
    for i in range(300):
        k = i % 3
        f.write(f"{100 + 10 * k + random.gauss(0, 2):.3f};{random.gauss(k, 0.3):.3f};{['setosa', 'versicolor', 'virginica'][k]}\n")
PY
    "$cli" run --data "csv:$tmp/iris.csv" --label species --model logreg --epochs 3 --json -q \
      >"$tmp/out" 2>"$tmp/err" || fail "run failed: $(cat "$tmp/err")"
    "$py" - "$tmp/out" <<'PY' || fail "CSV run is wrong: $(head -c 800 "$tmp/out")"
import json, sys
s = json.load(open(sys.argv[1]))
assert "3 classes (setosa, versicolor, virginica)" in s["dataset"], s["dataset"]
assert s["train_samples"] == 270 and s["val_samples"] == 30, (s["train_samples"], s["val_samples"])
assert s["arms"]["no-accum"]["val_accuracy"] > 0.9, s["arms"]["no-accum"]["val_accuracy"]
PY
    ;;
  fashion_mnist_run)
    if [ ! -f "$fashion/train-images-idx3-ubyte.gz" ]; then
      echo "SKIP [$case_name]: dataset-fashion-mnist is not installed"
      exit 77
    fi
    "$cli" run --data fashion-mnist --model logreg --lr 0.01 --samples 8192 --json -q \
      >"$tmp/out" 2>"$tmp/err" || fail "run failed: $(cat "$tmp/err")"
    "$py" - "$tmp/out" <<'PY' || fail "Fashion-MNIST run is wrong: $(head -c 800 "$tmp/out")"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["train_samples"] == 60000 and s["val_samples"] == 10000, s
assert "sample [1x28x28], 10 classes (T-shirt/top" in s["dataset"], s["dataset"]
for name, a in s["arms"].items():
    assert a["status"] == "finished", (name, a)
assert s["arms"]["big-batch"]["val_accuracy"] > 0.6, s["arms"]["big-batch"]["val_accuracy"]
PY
    ;;
  grad_check_kinks)
    # A gradient check at a kink (float32 rounding at a ReLU's 0): the table says so, the
    # headline (largest, kinks excluded) leaves it out, and the JSON counts it. Where natural
    # kinks fall depends on the CPU's float32 kernels, so the model makes its own: its float32
    # forward nudges the hidden pre-activations of samples with a large first feature by ±1e-3
    # depending on the batch's size; float64 is exact. 31 checks: every 10th update and the
    # window across the epoch end.
    if ! "$py" -c "import torch" 2>/dev/null; then
      echo "SKIP [$case_name]: $py cannot import torch (Debian package python3-torch)"
      exit 77
    fi
    "$py" "$(dirname "$0")/../core/train/kinked_model.py" "$tmp/kinked.pt" 1.2 || fail "the kinked model could not be scripted"
    common=(run --no-store --data blobs:16 --model "torchscript:$tmp/kinked.pt" --micro-batch 8
            --accum 8 --samples 19200 --arms accum,big-batch -q)
    "$cli" "${common[@]}" >"$tmp/table" 2>"$tmp/err" || fail "run failed: $(cat "$tmp/err")"
    "$cli" "${common[@]}" --json >"$tmp/json" 2>"$tmp/err" || fail "run failed: $(cat "$tmp/err")"
    "$py" - "$tmp/json" "$tmp/table" <<'PY' || fail "kinks are not reported right: $(cat "$tmp/table")"
import json, sys
a = json.load(open(sys.argv[1]))["arms"]["accum"]
table = open(sys.argv[2]).read()
kinks, checks = a["grad_equivalence_kinks"], a["grad_equivalence_checks"]
assert kinks >= 1 and checks == 31 and checks - kinks >= 1, a
assert a["grad_equivalence_rel_diff"] > 1e-4, a
assert 0 < a["grad_equivalence_rel_diff_without_kinks"] <= 1e-5, a
row = next(l for l in table.splitlines() if l.startswith("accum "))
assert row.split()[-2] == "%.2e" % a["grad_equivalence_rel_diff_without_kinks"], row
headline = "gradient check (largest, kinks excluded): %.2e of %d checks " % (
    a["grad_equivalence_rel_diff_without_kinks"], checks)
assert any(l.startswith(headline) for l in table.splitlines()), table
assert a["grad_equivalence_largest_kink"] == a["grad_equivalence_rel_diff"], a
line = "gradient checks: %d of %d " % (kinks, checks)
size = "%.2e in float32)" % a["grad_equivalence_largest_kink"]
assert any(l.startswith(line) and size in l and "repeated in float64 at the same weights" in l
           for l in table.splitlines()), table
PY
    ;;
  *) fail "unknown case" ;;
esac
echo "PASS [$case_name]"
