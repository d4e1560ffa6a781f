#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Keeps README.md and the manual (docs/*.md) true to the repository and the programs.

Usage: docs_test.py CASE SOURCE_DIR [ACCUMLAB_CLI]
  links     every relative link and image resolves to a file or folder of the repository,
            and every #anchor to a heading of the page it names
  commands  every `accumlab-cli ...` command shown (in ```sh / ```console blocks and in
            inline code) names a subcommand, and each of its options appears in that
            subcommand's --help: a dry run at --help level
  cli_help  the --help section of docs/cli.md is the built accumlab-cli's (scripts/cli-help-md)

A build without the desktop app (-DACCUMLAB_BUILD_GUI=OFF, as the sanitizer build) has no
`report` command: with ACCUMLAB_WITH_REPORT=0 in the environment (tests/scripts/CMakeLists.txt
sets it) the commands shown for report and its --help section are left out, and said so.
"""
import os
import re
import shlex
import subprocess
import sys
import tempfile

# Whether the built accumlab-cli has `report` (it renders with the desktop app's UI library).
WITH_REPORT = os.environ.get("ACCUMLAB_WITH_REPORT", "1") != "0"
REPORT_HELP = re.compile(r"^### `accumlab-cli report --help`\n\n```text\n.*?^```\n\n", re.M | re.S)
REPORT_LINE = re.compile(r"^  report  .*\n", re.M)

FENCE = re.compile(r"^(\s*)(```+|~~~+)\s*([\w+-]*)")


def pages(src):
    names = ["README.md"] + sorted(
        os.path.join("docs", f) for f in os.listdir(os.path.join(src, "docs")) if f.endswith(".md"))
    return [(name, open(os.path.join(src, name), encoding="utf-8").read()) for name in names]


def split_blocks(text):
    """Yields ('prose', '', paragraph) and ('code', language, block text), in order."""
    lines = text.splitlines()
    paragraph = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            if lines[i].strip():
                paragraph.append(lines[i])
            elif paragraph:
                yield "prose", "", "\n".join(paragraph)
                paragraph = []
            i += 1
            continue
        if paragraph:
            yield "prose", "", "\n".join(paragraph)
            paragraph = []
        fence, lang = m.group(2), m.group(3)
        j = i + 1
        while j < len(lines) and not lines[j].strip().startswith(fence[:3]):
            j += 1
        yield "code", lang, "\n".join(lines[i + 1:j])
        i = j + 1
    if paragraph:
        yield "prose", "", "\n".join(paragraph)


def prose_without_code_spans(line):
    return re.sub(r"`+[^`]*`+", "", line)


def slug(heading):
    """GitHub's anchor of a heading."""
    text = re.sub(r"[`*_]|<[^>]+>", "", heading).strip().lower()
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(text):
    found, seen = set(), {}
    for kind, _, paragraph in split_blocks(text):
        for line in paragraph.splitlines() if kind == "prose" else []:
            m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
            if m:
                base = slug(m.group(1))
                n = seen.get(base, 0)
                seen[base] = n + 1
                found.add(base if n == 0 else f"{base}-{n}")
    return found


def check_links(src):
    problems, count = [], 0
    texts = dict(pages(src))
    for name, text in texts.items():
        for kind, _, line in split_blocks(text):
            if kind != "prose":
                continue
            for target in re.findall(r"\]\(\s*<?([^()\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)",
                                     prose_without_code_spans(line)):
                if re.match(r"^[a-z][a-z0-9+.-]*:", target):
                    continue  # http:, https:, mailto:: not checked here (no network)
                count += 1
                path, _, anchor = target.partition("#")
                where = os.path.normpath(os.path.join(os.path.dirname(name), path)) if path else name
                full = os.path.join(src, where)
                if path and not os.path.exists(full):
                    problems.append(f"{name}: link to {target}: {where} does not exist")
                    continue
                if anchor:
                    if not where.endswith(".md"):
                        problems.append(f"{name}: link to {target}: an anchor into a file that is not Markdown")
                        continue
                    text_there = texts.get(where) or open(full, encoding="utf-8").read()
                    if anchor not in anchors(text_there):
                        problems.append(f"{name}: link to {target}: {where} has no heading #{anchor}")
    return problems, f"{count} relative links"


def shown_commands(src):
    """(page, command line) of every accumlab-cli command shown in the docs."""
    for name, text in pages(src):
        for kind, lang, body in split_blocks(text):
            if kind == "code" and lang in ("sh", "bash", "console", "shell"):
                joined = re.sub(r"\\\n\s*", " ", body)
                for line in joined.splitlines():
                    line = line.strip()
                    if lang == "console":
                        if not line.startswith("$ "):
                            continue
                        line = line[2:]
                    yield name, line
            elif kind == "prose":
                for span in re.findall(r"`([^`]+)`", body):
                    yield name, " ".join(span.split())


def cli_tokens(line):
    """The arguments after accumlab-cli in a shell line, or None when it runs no accumlab-cli."""
    try:
        words = shlex.split(line, comments=True)
    except ValueError:
        return None
    for i, word in enumerate(words):
        if word.rsplit("/", 1)[-1] == "accumlab-cli" and (i == 0 or words[i - 1] in ("sudo", "exec", "time")
                                                         or re.match(r"^\w+=", words[i - 1])):
            args = []
            for w in words[i + 1:]:
                if w in ("|", "||", "&&", ";", "&") or w.startswith((">", "<", "2>", "|")):
                    break
                args.append(w)
            return args
    return None


def subcommand_names(help_text):
    names, inside = [], False
    for line in help_text.splitlines():
        if line.startswith("Subcommands:"):
            inside = True
        elif inside and re.match(r"^  \S", line):
            names.append(line.split()[0])
        elif inside and line and not line.startswith(" "):
            inside = False
    return names


def check_commands(src, cli):
    helps = {}

    def help_of(path):
        if path not in helps:
            out = subprocess.run([cli, *path, "--help"], stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, text=True, timeout=60, check=False)
            helps[path] = out.stdout if out.returncode == 0 else None
        return helps[path]

    problems, count, skipped = [], 0, 0
    for name, line in shown_commands(src):
        args = cli_tokens(line)
        if args is None:
            continue
        if not WITH_REPORT and args[:1] == ["report"]:
            skipped += 1
            continue
        count += 1
        path = ()
        rest = list(args)
        # Walk down the subcommands (accumlab-cli lesson run …).
        while rest and not rest[0].startswith("-") and rest[0] in subcommand_names(help_of(path) or ""):
            path += (rest.pop(0),)
        text = help_of(path)
        if text is None:
            problems.append(f"{name}: `{line}`: accumlab-cli {' '.join(path)} --help fails")
            continue
        if not path and rest and not rest[0].startswith("-"):
            problems.append(f"{name}: `{line}`: '{rest[0]}' is not a subcommand of accumlab-cli")
            continue
        if subcommand_names(text) and not rest:
            continue  # `accumlab-cli lesson` alone: a group, shown as such
        for word in rest:
            if not word.startswith("-") or re.match(r"^-\d", word) or word in ("-",):
                continue
            flag = word.split("=", 1)[0]
            if not re.search(r"(^|[\s,])" + re.escape(flag) + r"([\s,=]|$)", text, re.M):
                problems.append(f"{name}: `{line}`: {flag} is not an option of "
                                f"accumlab-cli {' '.join(path)}".rstrip())
    if count == 0:
        problems.append("no accumlab-cli command found in the docs: the extraction is broken")
    what = f"{count} accumlab-cli commands against {len(helps)} --help texts"
    if skipped:
        what += f" ({skipped} report commands left out: this build has no report)"
    return problems, what


def check_cli_help(src, cli):
    page = os.path.join(src, "docs", "cli.md")
    with tempfile.TemporaryDirectory() as tmp:
        if not WITH_REPORT:
            # The page as a build without report would write it: no report line, no section.
            with open(page, encoding="utf-8") as f:
                text = f.read()
            text, sections = REPORT_HELP.subn("", text)
            text, lines = REPORT_LINE.subn("", text)
            if sections != 1 or lines != 1:
                return [f"{page}: found {sections} report --help sections and {lines} report "
                        "lines in the subcommand list, expected one each"], ""
            page = os.path.join(tmp, "cli.md")
            with open(page, "w", encoding="utf-8") as f:
                f.write(text)
        out = subprocess.run([sys.executable, os.path.join(src, "scripts", "cli-help-md"),
                              "--check", cli, page],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             check=False)
    what = out.stdout.strip().splitlines()[-1:]
    if not WITH_REPORT:
        what += ["(report left out: this build has no report)"]
    return ([] if out.returncode == 0 else [out.stdout.strip()]), " ".join(what)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    case, src = sys.argv[1], sys.argv[2]
    cli = sys.argv[3] if len(sys.argv) > 3 else None
    if case == "links":
        problems, what = check_links(src)
    elif case in ("commands", "cli_help"):
        if not cli or not os.access(cli, os.X_OK):
            sys.exit(f"FAIL [{case}]: needs the built accumlab-cli as its third argument")
        problems, what = (check_commands if case == "commands" else check_cli_help)(src, cli)
    else:
        sys.exit(f"unknown case {case}")
    for p in problems:
        print(p)
    if problems:
        print(f"FAIL [{case}]: {len(problems)} problem(s)")
        return 1
    print(f"PASS [{case}]: {what}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
