#!/usr/bin/env python3
"""The folders of each target must form a tree (ARCHITECTURE.md): folder A uses folder B when a
file in A names a type declared at the top level of a file in B (comments and string literals
aside). Exits 1 naming the folders of any cycle; -v prints every arrow.

Usage: folder_graph.py [-v] [Sources/Target...]   (every target under Sources by default)
"""
import collections
import os
import re
import sys

DECLARATION = re.compile(
    r"^(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private|final|indirect|nonisolated)\s+)*"
    r"(?:class|struct|enum|protocol|actor|typealias)\s+([A-Z]\w*)", re.M)
COMMENTS_AND_STRINGS = re.compile(r'//.*?$|/\*.*?\*/|"(?:\\.|[^"\\])*"', re.M | re.S)


def arrows(root):
    """{folder: {used folder: {type names}}} for the Swift files under `root`."""
    files = {}
    for directory, _, names in os.walk(root):
        for name in names:
            if name.endswith(".swift"):
                with open(os.path.join(directory, name)) as source:
                    files[os.path.join(directory, name)] = (os.path.relpath(directory, root), source.read())
    owner = {}
    for folder, text in files.values():
        for name in DECLARATION.findall(text):
            owner.setdefault(name, folder)
    uses = collections.defaultdict(lambda: collections.defaultdict(set))
    for folder, text in files.values():
        for word in set(re.findall(r"\b[A-Z]\w*\b", COMMENTS_AND_STRINGS.sub("", text))):
            used = owner.get(word)
            if used is not None and used != folder:
                uses[folder][used].add(word)
    return uses


def cycles(uses):
    """The strongly connected sets of more than one folder (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(folder):
        index[folder] = low[folder] = len(index)
        stack.append(folder)
        on_stack.add(folder)
        for used in uses.get(folder, {}):
            if used not in index:
                visit(used)
                low[folder] = min(low[folder], low[used])
            elif used in on_stack:
                low[folder] = min(low[folder], index[used])
        if low[folder] == index[folder]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == folder:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for folder in list(uses):
        if folder not in index:
            visit(folder)
    return found


def main():
    verbose = "-v" in sys.argv
    targets = [argument for argument in sys.argv[1:] if argument != "-v"] or sorted(
        os.path.join("Sources", name) for name in os.listdir("Sources") if os.path.isdir(os.path.join("Sources", name)))
    failed = False
    for root in targets:
        uses = arrows(root)
        if verbose:
            for folder in sorted(uses):
                for used in sorted(uses[folder]):
                    print(f"{root}: {folder} -> {used}: {', '.join(sorted(uses[folder][used])[:8])}")
        for component in cycles(uses):
            print(f"{root}: these folders use each other: {', '.join(component)}")
            failed = True
    if failed:
        sys.exit(1)
    print(f"folders form a tree in each of {len(targets)} targets")


if __name__ == "__main__":
    main()
