#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A class is defined in one file: its own (docs/contributing.md, "Where code goes").

Usage: class_files_test.py SOURCE_DIR [--list]

Fails naming each .cpp under core/, ui/ and app/ that defines a member function of a class
(`Name::member(` at the start of a line) unless the class is
  - the one the file is named after: run_store.cpp defines RunStore::…, or a class nested in
    it (Trainer::Impl in trainer.cpp), or
  - declared in the header of the same name beside it or under core/include/accumlab/ (a
    small value type that comes with the class: ChildResult in child_process.h).
A class spread over several files (RunStore's exports in run_exporter.cpp) hides it rather
than splitting it: extract a class that owns its part instead.
--list prints the offending file and classes, one a line, and exits 0.
"""
import os
import re
import sys

FOLDERS = ("core", "ui", "app")
# A definition at the start of a line: an optional return type, then Class::member( or
# Class::~Class( (also Outer::Inner::member).
DEFINITION = re.compile(r"^(?!\s|//|#|return\b)(?:[\w:<>,*&\s]+?\s+[*&]?)?((?:[A-Z]\w*::)+)~?\w+\s*\(",
                        re.M)
DECLARATION = re.compile(r"^\s*(?:class|struct)\s+([A-Z]\w*)\b[^;]*$", re.M)


def camel(stem):
    return "".join(part.capitalize() for part in stem.split("_")).lower()


def declared_in(header):
    try:
        with open(header, encoding="utf-8") as f:
            return set(DECLARATION.findall(f.read()))
    except OSError:
        return set()


def offenders(root):
    found = {}
    for top in FOLDERS:
        for folder, _, files in os.walk(os.path.join(root, top)):
            for name in sorted(files):
                if not name.endswith(".cpp"):
                    continue
                path = os.path.join(folder, name)
                stem = name[:-4]
                with open(path, encoding="utf-8") as f:
                    text = f.read()
                companions = declared_in(os.path.join(folder, stem + ".h")) | declared_in(
                    os.path.join(root, "core", "include", "accumlab", stem + ".h"))
                bad = set()
                for m in DEFINITION.finditer(text):
                    outer = m.group(1).split("::")[0]
                    if outer.lower() == camel(stem) or outer in companions:
                        continue
                    bad.add(outer)
                if bad:
                    found[os.path.relpath(path, root)] = sorted(bad)
    return found


def main():
    root = sys.argv[1]
    found = offenders(root)
    for path, classes in sorted(found.items()):
        print(f"{path}: defines members of {', '.join(classes)}")
    if "--list" in sys.argv[2:] or not found:
        return 0
    print(f"{len(found)} file(s) define members of a class they are not named after; move them "
          "to that class's file, or extract a class that owns its part")
    return 1


if __name__ == "__main__":
    sys.exit(main())
