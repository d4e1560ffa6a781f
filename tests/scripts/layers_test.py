# SPDX-License-Identifier: GPL-3.0-or-later
"""The layers hold: every #include between folders follows the table of allowed arrows below.

A folder's files may include their own folder's and those of the folders it names in ARROWS,
nothing else. The table itself has no loop (checked too), so no include can point back up.
Besides the table:
- a public header (core/include/accumlab/X.h) belongs to the folder of its source, the one
  X.cpp under core/; one with no source names its home in HOMES;
- no LibTorch under ui/ and app/, not even through a header it includes, and none in the
  libraries without it (core/CMakeLists.txt's accumlab_records, accumlab_store and
  accumlab_runners);
- no Qt under core/.

Usage: layers_test.py SOURCE_DIR
"""
import os
import re
import sys

# Folder -> the folders its files may include. Lower floors first; a folder may name only
# folders above it in this list.
ARROWS = {
    # core: the torch-free floors, then the engine, then what runs and keeps whole runs
    "core/io": [],
    "core/config": ["core/io"],
    "core/records": ["core/io", "core/config"],
    "core/stats": ["core/io", "core/config", "core/records"],
    "core/process": ["core/io", "core/config"],
    "core/memory": ["core/io", "core/config", "core/records"],
    "core/data": ["core/io", "core/config", "core/records"],
    "core/models": ["core/io", "core/config", "core/memory", "core/data", "core/process"],
    "core/store": ["core/io", "core/config", "core/records", "core/stats"],
    "core/sweeps": ["core/io", "core/config", "core/records", "core/stats", "core/process",
                    "core/store"],
    "core/train": ["core/io", "core/config", "core/records", "core/stats", "core/process",
                   "core/memory", "core/data", "core/models", "core/store", "core/sweeps"],
    "core/lessons": ["core/io", "core/config", "core/records", "core/stats", "core/process",
                     "core/store", "core/sweeps"],
    "core/audit": ["core/io", "core/config", "core/records", "core/store"],
    # ui: the models of what is shown, the plots, then the panels, then the window
    "ui/series": ["core/*"],
    "ui/plots": ["core/*", "ui/series"],
    "ui/files": ["core/*"],
    "ui/widgets": ["core/*"],
    "ui/controller": ["core/*"],
    "ui/runs": ["core/*", "ui/series", "ui/plots"],
    "ui/report": ["core/*", "ui/series", "ui/plots", "ui/runs"],
    "ui/experiment": ["core/*", "ui/plots", "ui/files", "ui/widgets", "ui/controller"],
    "ui/sweep": ["core/*", "ui/series", "ui/plots", "ui/files", "ui/widgets", "ui/controller",
                 "ui/report"],
    "ui/lessons": ["core/*", "ui/plots", "ui/files", "ui/controller", "ui/report", "ui/sweep"],
    "ui/help": ["core/*", "ui/series", "ui/plots", "ui/widgets"],
    "ui/window": ["core/*", "ui/*"],
    # app: the programs
    "app/signals": [],
    "app/blas": [],
    "app/cli": ["core/*", "ui/report", "ui/runs", "ui/sweep", "app/signals", "app/blas"],
    "app/gui": ["ui/*", "app/signals", "app/blas"],
}

# Public headers with no source of their own, and the folder each belongs to.
HOMES = {
    "input_error.h": "core/io",
    "names.h": "core/io",
    "format_bytes.h": "core/io",
    "metrics_sink.h": "core/records",
    "record_batch.h": "core/records",
    "plot_ids.h": "core/records",
    "smoothing.h": "core/stats",
    "text_lengths.h": "core/data",
    "checkpoint_path.h": "core/train",
    "target_stop.h": "core/train",
    "lesson.h": "core/lessons",
}

# The libraries of core that must not reach LibTorch.
TORCH_FREE_LIBRARIES = ["accumlab_records", "accumlab_store", "accumlab_runners"]

PUBLIC = "core/include/accumlab/"
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
TORCH = re.compile(r"^(torch|ATen|c10|caffe2)/")
QT = re.compile(r"^Q[A-Za-z]*(/|$)")


def sources(root):
    out = []
    for top in ("core", "ui", "app"):
        for d, _, names in os.walk(os.path.join(root, top)):
            for n in names:
                if n.endswith((".h", ".cpp")):
                    out.append(os.path.relpath(os.path.join(d, n), root))
    return sorted(out)


def main():
    root = sys.argv[1]
    files = sources(root)
    known = set(files)
    problems = []

    def fail(text):
        problems.append(text)

    # The table: every folder that holds sources is in it, every arrow names a known folder
    # above it (so the arrows cannot form a loop).
    order = list(ARROWS)
    folders = {os.path.dirname(f) for f in files if not f.startswith(PUBLIC)}
    for d in sorted(folders - set(ARROWS)):
        fail(f"{d}/ is not in the layers table of tests/scripts/layers_test.py: add its arrows")

    def allowed(a, b):
        for pat in ARROWS.get(a, []):
            if pat == b or (pat.endswith("/*") and b.startswith(pat[:-1])):
                return True
        return False

    for a in order:
        for b in [x for x in order if allowed(a, x) and x != a]:
            if order.index(b) > order.index(a):
                fail(f"the table lets {a} include {b}, which stands above it: a loop")

    # Public headers: their folder is their source's.
    cpp_dirs = {}
    for f in files:
        if f.endswith(".cpp") and f.startswith("core/"):
            cpp_dirs.setdefault(os.path.basename(f)[:-4], []).append(os.path.dirname(f))

    def folder_of(f):
        if not f.startswith(PUBLIC):
            return os.path.dirname(f)
        name = os.path.basename(f)
        dirs = cpp_dirs.get(name[:-2], [])
        return dirs[0] if len(dirs) == 1 else HOMES.get(name)

    for f in files:
        if not f.startswith(PUBLIC):
            continue
        name = os.path.basename(f)
        dirs = cpp_dirs.get(name[:-2], [])
        if len(dirs) > 1:
            fail(f"{f}: its name predicts no one source: {', '.join(dirs)} each have {name[:-2]}.cpp")
        elif dirs and name in HOMES:
            fail(f"{f} has a source in {dirs[0]}/: take it out of HOMES")
        elif not dirs and name not in HOMES:
            fail(f"{f} has no {name[:-2]}.cpp under core/: give it a home in HOMES")

    def resolve(f, path):
        here = os.path.dirname(f)
        for base in (here, "core", "core/include", "ui", "app", "app/cli"):
            cand = os.path.normpath(os.path.join(base, path))
            if cand in known:
                return cand
        return None

    includes = {}
    for f in files:
        lines = []
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as src:
            for number, line in enumerate(src, 1):
                m = INCLUDE.match(line)
                if m:
                    lines.append((number, m.group(1), m.group(2)))
        includes[f] = lines

    # Arrows between folders.
    for f in files:
        a = folder_of(f)
        for number, kind, path in includes[f]:
            target = resolve(f, path) if kind == '"' else None
            if target is None:
                if f.startswith("core/") and kind == "<" and QT.match(path):
                    fail(f"{f}:{number} includes Qt ({path}); core has no Qt")
                continue
            b = folder_of(target)
            if a and b and a != b and not allowed(a, b):
                fail(f"{f}:{number} includes {target}: {a} may not include {b}")

    # LibTorch, also through headers: not under ui/ or app/, not in the store library.
    memo = {}

    def torch_path(f, seen=()):
        if f in memo:
            return memo[f]
        memo[f] = None
        for _, kind, path in includes[f]:
            if kind == "<" and TORCH.match(path):
                memo[f] = [path]
                break
            target = resolve(f, path) if kind == '"' else None
            if target and target not in seen:
                chain = torch_path(target, seen + (f,))
                if chain:
                    memo[f] = [target] + chain
                    break
        return memo[f]

    with open(os.path.join(root, "core/CMakeLists.txt"), encoding="utf-8") as cm:
        text = cm.read()
    torch_free = [f for f in files if f.startswith(("ui/", "app/"))]
    for lib in TORCH_FREE_LIBRARIES:
        listed = re.search(r"add_library\(" + lib + r" STATIC(.*?)\)", text, re.S)
        if listed:
            torch_free += ["core/" + s for s in re.findall(r"^\s*([\w/]+\.cpp)", listed.group(1), re.M)]
        else:
            fail(f"core/CMakeLists.txt: no add_library({lib} STATIC …) to read")
    for f in torch_free:
        if f in known:
            chain = torch_path(f)
            if chain:
                fail(f"{f} reaches LibTorch: {' -> '.join(chain)}")

    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} layering problems")
        return 1
    print(f"{len(files)} files, {sum(len(v) for v in includes.values())} includes: the layers hold")
    return 0


if __name__ == "__main__":
    sys.exit(main())
