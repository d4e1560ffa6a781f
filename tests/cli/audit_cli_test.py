#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""`accumlab-cli audit FILE.jsonl` on audit files that python/accumlab wrote of plain PyTorch
loops (docs/audit.md): the verdict table and sentence, `--json`'s verdict (the same as the
Python package's), `--db` storing the reference and "your loop" for list, show, compare and
export, and bad files (truncated, wrong version, garbage, missing) refused in one sentence
with exit code 2 and the store untouched.

Usage: audit_cli_test.py ACCUMLAB_CLI
"""
import hashlib
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "python"))
import torch  # noqa: E402

from accumlab import audit  # noqa: E402

M, K, ROWS = 8, 4, 100  # the last window is one micro-batch of 4 rows


def loop(recipe, out, every=1):
    """A plain accumulation loop on an MLP, right or with `recipe`'s mistake."""
    g = torch.Generator().manual_seed(0)
    x, y = torch.randn(ROWS, 6, generator=g), torch.randint(0, 3, (ROWS,), generator=g)
    torch.manual_seed(1)
    model = torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.Tanh(), torch.nn.Linear(16, 3))
    sgd = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    criterion = torch.nn.CrossEntropyLoss()
    starts = list(range(0, ROWS, M))
    with audit.watch(model, sgd, loss=criterion, out=out, every=every) as a:
        for _ in range(3):  # epochs
            for i in range(0, len(starts), K):
                window = [(s, min(s + M, ROWS)) for s in starts[i:i + K]]
                n = sum(b - s for s, b in window)
                if recipe != "no-zero":
                    sgd.zero_grad()
                for j, (s, b) in enumerate(window):
                    if recipe == "last-only":
                        sgd.zero_grad()
                    loss = criterion(model(x[s:b]), y[s:b])
                    factor = {"sum": 1.0, "last-only": 1.0, "mean-of-means": 1 / K,
                              "double-last": 1 / K, "unknown": 0.7 * (b - s) / n}
                    scaled = loss * factor.get(recipe, (b - s) / n)
                    twice = recipe == "double-last" and j == len(window) - 1
                    scaled.backward(retain_graph=twice)
                    if twice:
                        scaled.backward()
                sgd.step()
    return a


def cli(*args):
    return subprocess.run(list(args), capture_output=True, text=True)


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def main():
    with tempfile.TemporaryDirectory(prefix="accumlab-audit-") as folder:
        return run(sys.argv[1], folder)


def run(exe, folder):
    failures = []

    def check(ok, what):
        if not ok:
            failures.append(what)

    files = {}
    # Every recipe, audited at every window and with every=3 (irregular windows only, and
    # no no-zero prediction where the previous gradient was not kept): the CLI's verdict is
    # the Python package's and the recipe's own name.
    for recipe, every in [(r, e) for r in ("exact", "sum", "last-only", "double-last",
                                           "mean-of-means", "no-zero", "unknown")
                          for e in (1, 3)]:
        name = "%s-%d" % (recipe, every)
        files[name] = os.path.join(folder, name + ".jsonl")
        python = loop(recipe, files[name], every).verdict
        done = cli(exe, "audit", files[name], "--json")
        check(done.returncode == 0, "%s: exit %d: %s" % (name, done.returncode, done.stderr))
        verdict = json.loads(done.stdout)["verdict"] if done.returncode == 0 else None
        check(verdict == recipe == python,
              "%s: the CLI says %s, the Python package %s" % (name, verdict, python))
        text = cli(exe, "audit", files[name]).stdout
        check("verdict: " + recipe in text and "per micro-batch" in text,
              "%s: the table or the verdict line is missing:\n%s" % (name, text))
    for name in ("exact", "sum", "unknown"):
        files[name] = files[name + "-1"]
    text = cli(exe, "audit", files["unknown"]).stdout
    check("matches no known recipe" in text and "0.7×" in text,
          "unknown: the sentence does not give the scale:\n" + text)

    db = os.path.join(folder, "runs.sqlite")
    done = cli(exe, "audit", files["sum"], "--db", db, "--json")
    check(done.returncode == 0, "--db: exit %d: %s" % (done.returncode, done.stderr))
    stored = json.loads(done.stdout).get("stored", {}) if done.returncode == 0 else {}
    ids = stored.get("run_ids", {})
    check(set(ids) == {"reference", "your loop"}, "--db: stored runs %s" % ids)
    runs = json.loads(cli(exe, "list", "--db", db, "--json").stdout or "[]")
    names = sorted(r["name"] for r in runs)
    check(names == ["reference (exact big batch)", "your loop"], "list: names %s" % names)
    mine = str(ids.get("your loop", 0))
    show = cli(exe, "show", mine, "--db", db)
    check(show.returncode == 0 and "wrong recipe sum" in show.stdout,
          "show: %s%s" % (show.stdout[:400], show.stderr))
    compare = cli(exe, "compare", str(ids.get("reference", 0)), mine, "--db", db)
    check(compare.returncode == 0, "compare: " + compare.stderr)
    csv = os.path.join(folder, "runs.csv")
    export = cli(exe, "export", mine, "--db", db, "--format", "csv", "-o", csv)
    check(export.returncode == 0 and os.path.getsize(csv) > 0, "export: " + export.stderr)

    # The HTML report (accumlab-engine renders it when it was built with the app) shows the
    # loop with its verdict; CMake says whether this build has it.
    if os.environ.get("ACCUMLAB_WITH_REPORT", "1") == "1":
        html = os.path.join(folder, "report.html")
        report = subprocess.run([exe, "report", str(ids.get("reference", 0)), mine, "--db", db,
                                 "--out", html], capture_output=True, text=True,
                                env=dict(os.environ, QT_QPA_PLATFORM="offscreen"))
        text = open(html, encoding="utf-8").read() if os.path.exists(html) else ""
        check(report.returncode == 0 and "your loop" in text and "wrong recipe sum" in text,
              "report: exit %d, the loop or its verdict missing: %s"
              % (report.returncode, report.stderr[-300:]))

    with open(files["exact"]) as f:
        lines = f.read().splitlines(keepends=True)
    bad = {"truncated": "".join(lines[:3]) + lines[3][:25],
           "endless": "".join(lines[:-1]),
           "version": lines[0].replace('"version": 1', '"version": 7') + "".join(lines[1:]),
           "garbage": "\x7fELF\x02\x01 binary garbage\n",
           "window": lines[0] + '{"window": "one"}\n' + lines[-1]}
    before = digest(db)
    for name, content in bad.items():
        path = os.path.join(folder, name + ".jsonl")
        with open(path, "w") as f:
            f.write(content)
        done = cli(exe, "audit", path, "--db", db)
        message = done.stderr.strip()
        check(done.returncode == 2 and message.count("\n") == 0 and path in message
              and "internal error" not in message,
              "%s: exit %d, stderr %r" % (name, done.returncode, message))
    done = cli(exe, "audit", os.path.join(folder, "missing.jsonl"))
    check(done.returncode == 2, "missing file: exit %d" % done.returncode)
    done = cli(exe, "audit", db, "--db", db)
    check(done.returncode == 2, "the store as the audit file: exit %d" % done.returncode)
    check(digest(db) == before, "a bad file changed the store")
    check(len(json.loads(cli(exe, "list", "--db", db, "--json").stdout or "[]")) == 2,
          "a bad file added runs")
    for f in failures:
        print("FAIL " + f, file=sys.stderr)
    print("audit CLI: %d checks failed" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
