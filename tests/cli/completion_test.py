#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The bash completion of `accumlab-cli completion bash` (docs/cli.md), driven in bash.

Usage: completion_test.py CLI
  Every subcommand of accumlab-cli's --help and every option of each subcommand's --help
  completes; the choices of --window-policy, --arms, --data, --format and --progress do; the
  ids of stored runs complete after `show`, with the store --db names.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

CLI = os.path.abspath(sys.argv[1])
FAILURES = []
OPTION_LINE = re.compile(r"^  (-\w|--[\w-]+)")


def check(ok, message):
    if not ok:
        FAILURES.append(message)
        print(f"FAIL: {message}")


def run(*args, env=None):
    return subprocess.run([CLI, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          timeout=120, check=False, env=env)


def complete(script, line, wordbreaks=None):
    """COMPREPLY after typing `line` (COMP_POINT at its end)."""
    prog = f"source {script}\n"
    if wordbreaks is not None:
        prog += 'COMP_WORDBREAKS=$WORDBREAKS\n'
    prog += ('COMP_LINE="$1"; COMP_POINT=${#COMP_LINE}; _accumlab_cli\n'
             'printf "%s\\n" "${COMPREPLY[@]}"\n')
    # The script runs the line's accumlab-cli for the run ids: the one under test.
    env = dict(os.environ, PATH=os.path.dirname(CLI) + os.pathsep + os.environ["PATH"],
               WORDBREAKS=wordbreaks or "")
    out = subprocess.run(["bash", "-c", prog, "bash", line], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, timeout=60, check=False, env=env)
    check(out.returncode == 0 and not out.stderr,
          f"completing {line!r} failed ({out.returncode}): {out.stderr.strip()}")
    return [w for w in out.stdout.splitlines() if w]


def help_of(args):
    out = run(*args, "--help")
    check(out.returncode == 0, f"accumlab-cli {' '.join(args)} --help failed: {out.stderr}")
    return out.stdout


def subcommands(text):
    names, inside = [], False
    for line in text.splitlines():
        if line.startswith("Subcommands:"):
            inside = True
        elif inside and re.match(r"^  \S", line):
            names.append(line.split()[0])
        elif inside and line and not line.startswith(" "):
            inside = False
    return names


def options(text):
    """Every -x and --long name on the option lines of a --help text."""
    found = set()
    for line in text.splitlines():
        if OPTION_LINE.match(line):
            head = re.split(r"\s{2,}", line.strip())[0]
            found.update(re.findall(r"(?<![\w-])(--[a-z][\w-]*|-[A-Za-z])\b", head))
    return found


def main():
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, XDG_DATA_HOME=os.path.join(tmp, "xdg"))
        out = run("completion", "bash", env=env)
        check(out.returncode == 0, f"completion bash failed: {out.stderr}")
        script = os.path.join(tmp, "accumlab-cli")
        with open(script, "w", encoding="utf-8") as f:
            f.write(out.stdout)
        syntax = subprocess.run(["bash", "-n", script], stderr=subprocess.PIPE, text=True,
                                check=False)
        check(syntax.returncode == 0, f"the script is not bash: {syntax.stderr}")

        # Every subcommand and every option of every subcommand, as their --help lists them.
        top = help_of([])
        paths = [[]]
        for name in subcommands(top):
            paths.append([name])
            paths += [[name, sub] for sub in subcommands(help_of([name]))]
        check(len(paths) > 10, f"only {len(paths)} commands found in --help")
        for path in paths:
            text = help_of(path)
            prefix = " ".join(["accumlab-cli", *path])
            subs = subcommands(text)
            if subs:
                offered = complete(script, prefix + " ")
                for sub in subs:
                    check(sub in offered, f"'{prefix} ' does not offer the subcommand {sub}")
            offered = set(complete(script, prefix + " -"))
            wanted = options(text)
            check(wanted, f"no options read from {prefix} --help")
            for opt in sorted(wanted - offered):
                check(False, f"'{prefix} -' does not offer {opt}")
        check(complete(script, "accumlab-cli completion ") == ["bash"],
              "completion does not offer its shell, bash")

        # Choices, whole and after readline's ':' word break.
        expect = {
            "accumlab-cli run --window-policy ": {"stream", "flush-exact", "flush-divide-by-K",
                                                  "drop"},
            "accumlab-cli run --optimizer ": {"sgd", "adam", "adamw"},
            "accumlab-cli run --data fa": {"fashion-mnist"},
            "accumlab-cli run --model cnn": {"cnn", "cnn_bn"},
            "accumlab-cli run --arms no-accum,acc": {"no-accum,accum"},
            "accumlab-cli run -m 8 --arms=big": {"--arms=big-batch"},
            "accumlab-cli sweep --arm pitfall:no": {"pitfall:no-zero"},
            "accumlab-cli export 3 --format ": {"csv", "json", "tensorboard"},
            "accumlab-cli run --progress ": {"text", "jsonl"},
            "accumlab-cli lesson ": {"list", "run", "results"},
        }
        for line, want in expect.items():
            got = set(complete(script, line, wordbreaks=" \t\n\"'><;|&("))  # no : or =
            check(got == want, f"{line!r} offers {sorted(got)}, not {sorted(want)}")
        got = complete(script, "accumlab-cli run --arms accum,pitfall:s")
        check(set(got) == {"sum", "schedule-per-micro"},
              f"after the ':' word break --arms offers {got}, not sum and schedule-per-micro")

        # Stored run ids, from the store the line names.
        db = os.path.join(tmp, "runs.sqlite")
        out = run("run", "--data", "spirals", "--samples", "64", "--micro-batch", "8",
                  "--accum", "2", "--arms", "accum,big-batch", "--db", db, "-q", env=env)
        check(out.returncode == 0, f"the run to store failed: {out.stderr}")
        ids = {str(r["id"]) for r in json.loads(run("list", "--json", "--db", db).stdout)}
        check(len(ids) == 2, f"the store holds {sorted(ids)}, not two runs")
        got = set(complete(script, f"accumlab-cli show --db {db} "))
        check(got == ids, f"show offers the run ids {sorted(got)}, not {sorted(ids)}")
        got = set(complete(script, f"accumlab-cli run --db {db} --resume "))
        check(got == ids, f"run --resume offers {sorted(got)}, not {sorted(ids)}")
    if FAILURES:
        print(f"{len(FAILURES)} completion checks failed")
        return 1
    print("every subcommand, option and choice completes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
