#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes the Debian changelog of AccumLab from NEWS.md: one entry per version, newest first.

Usage: news_changelog.py NEWS.md MAINTAINER OUT
  NEWS.md     headings `## VERSION (YYYY-MM-DD)`, each followed by `- ` items (NEWS.md says so)
  MAINTAINER  "Name <email>", as the package's Maintainer field
  OUT         the changelog file to write, gzipped as Debian installs it when it ends in .gz
              (no name or time in the header, so that the same text gives the same bytes)

A NEWS.md without a version heading, or an item outside a version, is one sentence on stderr
and exit 2.
"""
import datetime
import gzip
import os
import re
import sys
import textwrap

HEADING = re.compile(r"^## (\d+\.\d+\.\d+) \((\d{4}-\d{2}-\d{2})\)\s*$")
WIDTH = 78  # lintian warns at 80 columns


def versions(path):
    """[(version, date, [item text…])], in the file's order."""
    found = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            heading = HEADING.match(line)
            if heading:
                found.append((heading.group(1), heading.group(2), []))
            elif line.startswith("## "):
                raise ValueError(f"{path}:{number}: a version heading reads "
                                 f"'## X.Y.Z (YYYY-MM-DD)', not '{line}'")
            elif line.startswith("- "):
                if not found:
                    raise ValueError(f"{path}:{number}: an item before the first version heading")
                found[-1][2].append(line[2:].strip())
            elif line.startswith("  ") and found and found[-1][2]:
                found[-1][2][-1] += " " + line.strip()
    if not found:
        raise ValueError(f"{path} has no version heading '## X.Y.Z (YYYY-MM-DD)'")
    return found


def entry(version, date, items, maintainer):
    day = datetime.datetime.strptime(date, "%Y-%m-%d")
    lines = [f"accumlab ({version}) unstable; urgency=medium", ""]
    for item in items:
        plain = item.replace("`", "")
        lines += textwrap.wrap(plain, WIDTH, initial_indent="  * ", subsequent_indent="    ",
                               break_on_hyphens=False)
    lines += ["", f" -- {maintainer}  {day.strftime('%a, %d %b %Y')} 00:00:00 +0000", ""]
    return "\n".join(lines)


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    news, maintainer, out = sys.argv[1:]
    try:
        text = "\n".join(entry(v, d, items, maintainer) for v, d, items in versions(news))
    except (OSError, ValueError) as e:
        print(f"news_changelog: {e}", file=sys.stderr)
        return 2
    data = text.encode("utf-8")
    if out.endswith(".gz"):
        data = gzip.compress(data, compresslevel=9, mtime=0)
    old = None
    if os.path.exists(out):
        with open(out, "rb") as f:
            old = f.read()
    if data != old:
        with open(out, "wb") as f:
            f.write(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
