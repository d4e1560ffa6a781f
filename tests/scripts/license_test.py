#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""AccumLab's license, GPL-3.0-or-later, is stated wherever it must be.

Usage: license_test.py spdx SOURCE_DIR [--list]
       license_test.py notices SOURCE_DIR
  spdx     fails naming each file whose first line (the second after a #! line) is not
      // SPDX-License-Identifier: GPL-3.0-or-later   (C++ and .proto)
      # SPDX-License-Identifier: GPL-3.0-or-later    (shell, Python, CMake and other scripts)
           --list prints the paths that lack it, one a line, and exits 0.
  notices  fails naming each place that does not state the license: LICENSE (the GPL's
           version 3 text), Debian's copyright file (DEP-5: AccumLab and every library it
           links), the AppStream metadata, the README's License section, the About dialog.

The files are git's tracked files in a checkout, else every file under SOURCE_DIR but the
build trees. A file is a source when its name says so (SOURCE_SUFFIXES, CMakeLists.txt), it
starts with #!, or it lies in scripts/ or .ci/. Data (fuzz corpora and findings, sample files,
lessons), pictures, Markdown and metadata templates carry no line.
"""
import os
import re
import subprocess
import sys

LINE = "SPDX-License-Identifier: GPL-3.0-or-later"
SLASH_SUFFIXES = (".cpp", ".cc", ".c", ".h", ".hpp", ".proto")
HASH_SUFFIXES = (".cmake", ".py", ".sh")
SCRIPT_FOLDERS = ("scripts/", ".ci/")
DATA_FOLDERS = ("tests/fuzz/corpus/", "tests/core/data/fuzz_findings/")


def tracked_files(root):
    """Paths relative to root: git's tracked files, or a walk outside the build trees."""
    if os.path.isdir(os.path.join(root, ".git")):
        out = subprocess.run(["git", "-C", root, "ls-files", "-z"], stdout=subprocess.PIPE,
                             check=True)
        return [p for p in out.stdout.decode().split("\0") if p]
    paths = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(("build", ".git"))]
        paths += [os.path.relpath(os.path.join(folder, f), root) for f in files]
    return sorted(paths)


def comment(path, head):
    """The comment marker the file's line takes, or None when the file is not a source."""
    if path.startswith(DATA_FOLDERS):
        return None
    name = os.path.basename(path)
    if name.endswith(SLASH_SUFFIXES):
        return "//"
    if name == "CMakeLists.txt" or name.endswith(HASH_SUFFIXES) or head.startswith(b"#!"):
        return "#"
    if path.startswith(SCRIPT_FOLDERS):
        return "#"
    return None


def expected_line(path, head):
    marker = comment(path, head)
    return None if marker is None else f"{marker} {LINE}"


def has_line(text, want):
    lines = text.splitlines()
    first = 1 if lines and lines[0].startswith("#!") else 0
    return len(lines) > first and lines[first].rstrip() == want


def missing(root):
    """(path, the line it lacks) of every source without its SPDX line."""
    found = []
    for path in tracked_files(root):
        full = os.path.join(root, path)
        if not os.path.isfile(full) or os.path.islink(full):
            continue  # deleted in the working tree, or a link
        with open(full, "rb") as f:
            data = f.read()
        want = expected_line(path, data[:2])
        if want and not has_line(data.decode("utf-8", "replace"), want):
            found.append((path, want))
    return found


# What Debian's copyright file must name: each library AccumLab links or compiles in, with
# the license its own Debian copyright file gives it.
COMPONENTS = {
    "QCustomPlot": "GPL-3+", "Qt 6": "LGPL-3", "LibTorch": "BSD-3-Clause",
    "SQLite": "public domain", "CLI11": "BSD-3-clause", "nlohmann-json": "Expat",
    "SQLiteCpp": "Expat", "Boost.Math": "BSL-1.0", "OpenBLAS": "BSD-3-clause",
    "Protocol Buffers": "BSD-3-Clause", "zlib": "Zlib",
}


def read(root, path):
    """The file's text; empty when it is missing (the check that reads it then fails)."""
    try:
        with open(os.path.join(root, path), encoding="utf-8") as f:
            return f.read()
    except FileNotFoundError:
        return ""


def notices(root):
    """One sentence for each place that does not state the license."""
    problems = []
    text = read(root, "LICENSE")
    debian_text = "/usr/share/common-licenses/GPL-3"
    if os.path.exists(debian_text):
        with open(debian_text, encoding="utf-8") as f:
            if f.read() != text:
                problems.append(f"LICENSE is not the text of {debian_text}")
    elif "GNU GENERAL PUBLIC LICENSE" not in text or "Version 3, 29 June 2007" not in text:
        problems.append("LICENSE is not the GNU General Public License, version 3")
    copyright_file = read(root, "resources/debian/copyright")
    paragraphs = [p for p in copyright_file.split("\n\n") if p.strip()] or [""]
    if not paragraphs[0].startswith(
            "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"):
        problems.append("resources/debian/copyright does not start with DEP-5's Format line")
    ours = [p for p in paragraphs if p.startswith("Files: *\n")]
    if not ours or "\nLicense: GPL-3+" not in ours[0]:
        problems.append("resources/debian/copyright: 'Files: *' is not under License: GPL-3+")
    if not any(p.startswith("License: GPL-3+\n") for p in paragraphs):
        problems.append("resources/debian/copyright has no stand-alone License: GPL-3+ paragraph")
    for name, license_name in COMPONENTS.items():
        if not re.search(re.escape(name) + r"\b[^\n]*\n?[^\n]*" + re.escape(license_name),
                         copyright_file):
            problems.append(f"resources/debian/copyright does not name {name} with its "
                            f"license {license_name}")
    for path, want in [
            ("resources/desktop/org.accumlab.AccumLab.metainfo.xml.in",
             "<project_license>GPL-3.0-or-later</project_license>"),
            ("ui/window/main_menus.cpp", "(GPL-3.0-or-later)"),
    ]:
        if want not in read(root, path):
            problems.append(f"{path} does not state the license: {want}")
    readme = read(root, "README.md")
    section = readme.split("\n## License\n", 1)[-1].split("\n## ", 1)[0]
    if "## License" not in readme or "GNU General Public License" not in section:
        problems.append("README.md's License section does not name the GNU General Public License")
    return problems


def main():
    args = sys.argv[1:]
    if len(args) < 2 or args[0] not in ("spdx", "notices"):
        sys.exit(__doc__)
    root = args[1]
    if args[0] == "notices":
        problems = notices(root)
        for p in problems:
            print(p)
        if not problems:
            print("LICENSE, the copyright file, the metadata, the README and About state GPL-3+")
        return 1 if problems else 0
    lacking = missing(root)
    if "--list" in args:
        print("\n".join(path for path, _ in lacking))
        return 0
    if lacking:
        for path, want in lacking:
            print(f"{path}: its first line (after any #! line) must be: {want}")
        print(f"{len(lacking)} source files lack the license line")
        return 1
    print("every source names its license (SPDX) on its first line")
    return 0


if __name__ == "__main__":
    sys.exit(main())
