#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A trained model taken away: `accumlab-cli export-model` in plain PyTorch.

Usage: export_model_test.py ACCUMLAB_CLI

Trains short stored runs of a built-in MLP, logreg, the CNN (with and without BatchNorm),
charlm, charlm-transformer and a user's own TorchScript model, writes each run's model with
`export-model` (the same bytes the app's File → Save trained model… writes), loads it with
`torch.jit.load` alone (no AccumLab code), and evaluates it on the run's own validation split,
rebuilt from docs/data-and-models.md ("Reproducing a run"): the loss must be the run's stored
validation loss. Then the bad inputs: an unknown run, an arm the experiment lacks, a run that
kept no weights (--keep-weights off), an --out that cannot be written: exit 2 and one sentence
naming what is wrong. And a merged store carries the models.
"""
import json
import os
import subprocess
import sys
import tempfile

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reproduce_python_test import (blobs, evaluate, sample_loss, spirals, split,  # noqa: E402
                                   text_loss, text_sequences)

CLI = sys.argv[1] if len(sys.argv) > 1 else "build/app/cli/accumlab-cli"
# The exported model computes what the engine's forward does, op for op; the sums may differ
# in their last bits only where TorchScript's executor orders an op's work otherwise.
kRelTol = 1e-6
failures = []


def cli(*args, code=0):
    done = subprocess.run([CLI, *args], capture_output=True, text=True)
    if done.returncode != code:
        raise SystemExit("accumlab-cli %s exited %d, not %d: %s" % (
            " ".join(args), done.returncode, code, done.stderr.strip()))
    return done


def check(name, ok, detail):
    print(("ok   " if ok else "FAIL ") + name + ": " + detail)
    if not ok:
        failures.append(name)


def stored_runs(db):
    if not os.path.exists(db):
        return []
    return json.loads(cli("list", "--db", db, "--json").stdout)


def train(db, args):
    """Trains no-accum and accum; returns their stored rows, no-accum first."""
    before = {r["id"] for r in stored_runs(db)}
    cli("run", "--db", db, "-q", "--threads", "1", "--arms", "no-accum,accum", "-m", "8", "-k", "4",
        *args)
    new = [r for r in stored_runs(db) if r["id"] not in before]
    return sorted(new, key=lambda r: r["arm"] != "no-accum")


def exported(db, run, folder, arm=None):
    out = os.path.join(folder, "run-%d%s.pt" % (run["id"], "-" + arm if arm else ""))
    cli("export-model", str(run["id"]), "--db", db, "--out", out, *(["--arm", arm] if arm else []))
    model = torch.jit.load(out)
    model.eval()
    return model, out


def main():
    torch.set_num_threads(1)
    folder = tempfile.mkdtemp()
    db = os.path.join(folder, "runs.sqlite")
    lines = os.path.join(folder, "lines.txt")
    raw = b"".join(b"line %d of the text, %s\n" % (i, b"ab" * (i % 23)) for i in range(300))
    with open(lines, "wb") as f:
        f.write(raw)
    user_model = os.path.join(folder, "user.pt")
    torch.manual_seed(5)
    torch.jit.script(torch.nn.Sequential(torch.nn.Linear(2, 24), torch.nn.Tanh(),
                                         torch.nn.Dropout(0.1), torch.nn.Linear(24, 3))).save(user_model)

    x, y = spirals(2000, 42)
    _, _, sx, sy = split(x, y, 42)
    x, y = blobs(2000, 784, 42)
    _, _, bx, by = split(x.reshape(-1, 1, 28, 28), y, 42)
    rows = [[2] + list(s) + [3] for s in text_sequences(raw)]
    _, _, text_val, _ = split(rows, rows, 42)
    tokens = sum(len(r) - 1 for r in text_val)

    cases = [
        ("mlp", ["--data", "spirals", "--model", "mlp:32,16"], sx, sy, sample_loss, len(sx), 1024),
        ("logreg", ["--data", "spirals", "--model", "logreg"], sx, sy, sample_loss, len(sx), 1024),
        ("cnn", ["--data", "blobs:1x28x28", "--model", "cnn"], bx, by, sample_loss, len(bx), 1024),
        ("cnn_bn", ["--data", "blobs:1x28x28", "--model", "cnn_bn"], bx, by, sample_loss, len(bx),
         1024),
        ("charlm", ["--data", "text:" + lines, "--model", "charlm"], text_val, text_val, text_loss,
         tokens, 64),
        ("charlm-transformer", ["--data", "text:" + lines, "--model", "charlm-transformer"], text_val,
         text_val, text_loss, tokens, 64),
        ("a user's TorchScript model", ["--data", "spirals", "--model", "torchscript:" + user_model],
         sx, sy, sample_loss, len(sx), 1024),
    ]
    first = None
    for name, args, vx, vy, loss, weight, batch in cases:
        synthetic = ["--synthetic-samples", "2000"] if "spirals" in args or "blobs:1x28x28" in args else []
        no_accum, accum = train(db, args + synthetic + ["--samples", "1600"])
        first = first or accum
        for run in (no_accum, accum):
            model, _ = exported(db, run, folder)
            ours = evaluate(model, vx, vy, loss, weight, batch)
            theirs = run["val_loss"]
            check("%s, %s: validation loss of the exported model" % (name, run["arm"]),
                  abs(ours - theirs) <= kRelTol * abs(theirs),
                  "%.10g in PyTorch, %.10g stored (relative difference %.2g)" % (
                      ours, theirs, abs(ours - theirs) / abs(theirs)))
        # --arm picks another arm of the same experiment: the same bytes as its own run's.
        _, by_arm = exported(db, no_accum, folder, "accum")
        _, own = exported(db, accum, folder)
        with open(by_arm, "rb") as a, open(own, "rb") as b:
            check("%s: --arm accum from the no-accum run" % name, a.read() == b.read(),
                  "the accum run's model")

    # Bad input: exit 2 and one sentence naming what is wrong.
    def refused(what, args, needle):
        done = cli("export-model", *args, "--db", db, code=2)
        message = done.stderr.strip()
        check("refuses " + what, needle in message and "\n" not in message, repr(message))

    out = os.path.join(folder, "m.pt")
    refused("an unknown run", ["999", "--out", out], "no run 999")
    refused("an arm the experiment lacks", [str(first["id"]), "--arm", "big-batch", "--out", out],
            "no arm big-batch")
    refused("a name that is no arm", [str(first["id"]), "--arm", "bigbatch", "--out", out], "bigbatch")
    refused("an --out that cannot be written",
            [str(first["id"]), "--out", os.path.join(folder, "missing", "m.pt")],
            os.path.join(folder, "missing", "m.pt"))
    refused("the store itself as --out", [str(first["id"]), "--out", db], "run database")
    cli("run", "--db", db, "-q", "--threads", "1", "--arms", "accum", "--data", "spirals",
        "--synthetic-samples", "500", "--samples", "200", "--keep-weights", "off")
    kept_none = max(r["id"] for r in stored_runs(db))
    refused("a run that kept no weights", [str(kept_none), "--out", out], "--keep-weights off")
    check("no half file is left", not os.path.exists(out) and not os.path.exists(out + ".partial"),
          "nothing at " + out)

    # A merged store carries the models.
    merged = os.path.join(folder, "merged.sqlite")
    cli("merge", db, "--db", merged)
    # Merged runs get new ids in the order of the source's.
    source_ids = sorted(r["id"] for r in stored_runs(db))
    merged_ids = sorted(r["id"] for r in stored_runs(merged))
    there = os.path.join(folder, "merged.pt")
    cli("export-model", str(merged_ids[source_ids.index(first["id"])]), "--db", merged, "--out",
        there)
    _, here = exported(db, first, folder)
    with open(there, "rb") as a, open(here, "rb") as b:
        check("a merged store carries the model", a.read() == b.read(), "the same bytes")

    if failures:
        raise SystemExit("%d checks failed: %s" % (len(failures), "; ".join(failures)))
    print("every exported model gives its run's validation loss in plain PyTorch")


if __name__ == "__main__":
    main()
