#!/usr/bin/env python3
"""Checks that the folders of core/src form floors: every #include "..." in core/src/** and
core/include/vramcalc/*.hpp names a file of its own folder or of a lower floor (core/layers.txt, lowest
first), and the folder graph has no cycle.

A public header core/include/vramcalc/X.hpp belongs to the folder holding X.cpp, or to the pseudo-folder
`include` (the value types) when no X.cpp exists. An include "dir/file" belongs to core/src/dir; a bare
"file" to the including file's folder.

usage: check_layers.py PROJECT_ROOT   -> exit 0, or exit 1 listing file:line -> target for each violation
"""
import os
import re
import sys

# Upward includes tolerated for now: (including file relative to the root, included text) -> why. The
# check fails on any violation not listed here, and on an entry that no longer matches (so the list only
# shrinks). Empty: every include of core/ goes down.
ALLOWED = {
}

INCLUDE_RE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
PSEUDO = "include"


def read_floors(root):
    path = os.path.join(root, "core", "layers.txt")
    floors = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            name = line.split("#", 1)[0].strip()
            if not name:
                continue
            if name in floors:
                sys.exit(f"{path}:{n}: {name} listed twice")
            floors.append(name)
    return {name: i for i, name in enumerate(floors)}


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = os.path.abspath(sys.argv[1])
    src = os.path.join(root, "core", "src")
    inc = os.path.join(root, "core", "include", "vramcalc")
    floor = read_floors(root)
    problems = []

    folders = sorted(d for d in os.listdir(src) if os.path.isdir(os.path.join(src, d)))
    for d in folders:
        if d not in floor:
            problems.append(f"core/src/{d}/: not in core/layers.txt (give it a floor)")

    # X.cpp -> its folder, for the public headers.
    cpp_folder = {}
    for d in folders:
        for dirpath, _, files in os.walk(os.path.join(src, d)):
            for f in files:
                if f.endswith(".cpp"):
                    base = f[:-4]
                    if base in cpp_folder and cpp_folder[base] != d:
                        problems.append(f"{base}.cpp in both {cpp_folder[base]}/ and {d}/: a public header {base}.hpp has no one folder")
                    cpp_folder.setdefault(base, d)

    def public_owner(name):
        return cpp_folder.get(os.path.splitext(os.path.basename(name))[0], PSEUDO)

    sources = []  # (path relative to root, folder)
    for d in folders:
        for dirpath, _, files in os.walk(os.path.join(src, d)):
            for f in sorted(files):
                if f.endswith((".cpp", ".hpp", ".h")):
                    sources.append((os.path.relpath(os.path.join(dirpath, f), root), d))
    if os.path.isdir(inc):
        for f in sorted(os.listdir(inc)):
            if f.endswith((".hpp", ".h")):
                sources.append((os.path.relpath(os.path.join(inc, f), root), public_owner(f)))

    edges = {}  # (from folder, to folder) -> [where]
    used_allowances = set()
    for rel, here in sources:
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            for n, line in enumerate(f, 1):
                m = INCLUDE_RE.match(line)
                if not m:
                    continue
                target = m.group(1)
                if target.startswith("vramcalc/"):
                    there = public_owner(target)
                elif "/" in target:
                    there = target.split("/", 1)[0]
                    if not os.path.isdir(os.path.join(src, there)):
                        problems.append(f"{rel}:{n} -> {target}: no folder core/src/{there}")
                        continue
                else:
                    there = here
                if there == here:
                    continue
                where = f"{rel}:{n} -> {target} ({here} -> {there})"
                if there not in floor or here not in floor:
                    continue  # reported above as a folder without a floor
                if (rel, target) in ALLOWED:
                    used_allowances.add((rel, target))
                    continue
                edges.setdefault((here, there), []).append(where)
                if floor[there] > floor[here]:
                    problems.append(f"{where}: includes a higher floor")

    for key in sorted(set(ALLOWED) - used_allowances):
        problems.append(f"allowed upward include no longer found, remove it from ALLOWED: {key[0]} -> {key[1]}")

    # Cycles among the folders (the floor rule excludes them; checked on its own so that a wrong order in
    # core/layers.txt cannot hide one behind the allow-list).
    graph = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)
    state = {}

    def visit(v, path):
        state[v] = 1
        for w in sorted(graph.get(v, ())):
            if state.get(w) == 1:
                cycle = path[path.index(w):] + [w]
                problems.append("folder cycle: " + " -> ".join(cycle) + "; first include of each step: " +
                                "; ".join(edges[(cycle[i], cycle[i + 1])][0] for i in range(len(cycle) - 1)))
            elif w not in state:
                visit(w, path + [w])
        state[v] = 2

    for v in sorted(graph):
        if v not in state:
            visit(v, [v])

    if problems:
        for p in problems:
            print(p)
        print(f"check_layers: {len(problems)} problem(s); floors, lowest first: {' < '.join(sorted(floor, key=floor.get))}")
        return 1
    print(f"check_layers: {len(sources)} files, {len(edges)} folder edges, all downward "
          f"({len(ALLOWED)} allowed exceptions); floors: {' < '.join(sorted(floor, key=floor.get))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
