#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Each wrong accumulation recipe on the default demo, with SGD and with Adam: the table of
README.md and docs/pitfalls.md.

Usage: bench/pitfall_table.py [--cli build/app/cli/accumlab-cli] [--seed 1] [--epochs 5]

Trains the default demo (`run --preset default`: Fashion-MNIST, the MLP, m = 8, K = 8) with
accum, big-batch and the pitfall arms that need nothing more, once with its SGD (LR 0.02,
momentum 0.9) and once with Adam (LR 0.001); then clip-each and schedule-per-micro beside
accum and big-batch with a clip norm of 1 and a cosine schedule, with SGD. Prints one
Markdown table: each arm's gradient check against the big batch (the typical deviation on full
windows, as the app's read-out states it) and its final training loss and validation accuracy
against big-batch's.
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PLAIN = ["pitfall:sum", "pitfall:last-only", "pitfall:double-last", "pitfall:mean-of-means",
         "pitfall:no-zero"]
NEEDY = ["pitfall:clip-each", "pitfall:schedule-per-micro"]


def run(cli, arms, extra, seed, epochs):
    cmd = [cli, "run", "--preset", "default", "--arms", ",".join(["accum", "big-batch"] + arms),
           "--seed", str(seed), "--epochs", str(epochs), "--no-store", "--json", "-q", *extra]
    print("$ " + " ".join(cmd[1:]), file=sys.stderr)
    return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)


def deviation(a, arm):
    """The gradient check as the app's read-out gives it (pitfallDeviation, brief)."""
    mean, largest = a.get("grad_equivalence_mean_full"), a.get("grad_equivalence_rel_diff")
    if a.get("grad_equivalence_checks", 0) == 0 or largest is None:
        return "–"
    if arm == "accum":
        return "%.1e (rounding)" % a["grad_equivalence_rel_diff_without_kinks"]
    if arm == "pitfall:sum" and mean is not None:
        return "×%.2f the big batch's" % (1 + mean)
    if arm == "pitfall:schedule-per-micro" and largest < 1e-5:
        return "exact (%.0e): the LR is wrong" % largest
    if arm == "pitfall:mean-of-means" and (mean is None or mean < 1e-5):
        uneven = a.get("grad_equivalence_uneven_checks", 0)
        return ("exact" if uneven == 0 else
                "exact, %.2f at %d uneven window%s" % (a["grad_equivalence_largest_uneven"],
                                                     uneven, "" if uneven == 1 else "s"))
    if arm == "pitfall:no-zero":
        return "%.3g, growing to %.3g" % (a["grad_equivalence_first"], a["grad_equivalence_last"])
    return "%.2f off (largest %.2f)" % (mean if mean is not None else largest, largest)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", default=os.path.join(HERE, "..", "build", "app", "cli",
                                                      "accumlab-cli"))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--epochs", type=float, default=5)
    args = parser.parse_args()
    sgd = run(args.cli, PLAIN, [], args.seed, args.epochs)
    adam = run(args.cli, PLAIN, ["--optimizer", "adam", "--lr", "0.001"], args.seed, args.epochs)
    needy = run(args.cli, NEEDY, ["--clip-norm", "1", "--lr-schedule", "cosine"], args.seed,
                args.epochs)
    print("| arm | SGD: gradient vs big batch | SGD: final loss ÷ big-batch's | SGD: val acc "
          "| Adam: gradient vs big batch | Adam: final loss ÷ big-batch's | Adam: val acc |")
    print("|---|---|---|---|---|---|---|")

    def cells(out, arm):
        a, big = out["arms"][arm], out["arms"]["big-batch"]
        ratio = a["final_train_loss"] / big["final_train_loss"]
        return [deviation(a, arm), "%.3g×" % ratio, "%.1f%%" % (100 * a["val_accuracy"])]

    for arm in ["accum"] + PLAIN:
        print("| %s | %s |" % (arm, " | ".join(cells(sgd, arm) + cells(adam, arm))))
    for arm in NEEDY:
        print("| %s (clip 1, cosine) | %s | – | – | – |" % (arm, " | ".join(cells(needy, arm))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
