# SPDX-License-Identifier: GPL-3.0-or-later
"""The audit file: JSON lines, a header, one line per window, an end line (docs/audit.md,
"The audit file"). accumlab-cli audit reads the same format (core/audit/audit_file.cpp)."""
import json

FORMAT = "accumlab-audit"
VERSION = 1

_NAMES = {"exact", "sum", "last-only", "double-last", "mean-of-means", "no-zero", "clip-each"}


def read(path):
    """The header and the windows of an audit file; raises ValueError with one sentence that
    names the file and what is wrong."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise ValueError("%s cannot be read as an audit file: %s" % (path, e)) from None
    lines = text.split("\n")
    if not text.endswith("\n"):
        raise ValueError("%s is truncated: its last line is incomplete" % path)
    objects = []
    for number, line in enumerate(lines[:-1], start=1):
        try:
            objects.append(json.loads(line))
        except ValueError:
            raise ValueError("%s: line %d is not JSON" % (path, number)) from None
        if not isinstance(objects[-1], dict):
            raise ValueError("%s: line %d is not a JSON object" % (path, number))
    if not objects or objects[0].get("format") != FORMAT:
        raise ValueError("%s is not an audit file: its first line does not name the format %s"
                         % (path, FORMAT))
    if objects[0].get("version") != VERSION:
        raise ValueError("%s is an audit file of version %s; this AccumLab reads version %d"
                         % (path, objects[0].get("version"), VERSION))
    if "end" not in objects[-1] or len(objects) < 2:
        raise ValueError("%s is truncated: it has no end line (the watched loop did not "
                         "finish)" % path)
    windows = objects[1:-1]
    for number, w in enumerate(windows, start=2):
        _check_window(path, number, w)
    return objects[0], windows


def _check_window(path, number, w):
    ok = isinstance(w.get("window"), int) and isinstance(w.get("audited"), bool) \
        and isinstance(w.get("counts"), list)
    if ok and w["audited"]:
        ok = isinstance(w.get("match"), list) and set(w["match"]) <= _NAMES \
            and isinstance(w.get("rel_diff"), (int, float))
    if not ok:
        raise ValueError("%s: line %d is not a window record (window, audited, counts, and "
                         "for an audited window rel_diff and match)" % (path, number))
