#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The folders of each target keep the layers ARCHITECTURE.md declares (its ```layers block): a
folder may use only the folders listed after it on its target's line, so no two folders use each
other and the order is the one the document draws. Every folder of a target with more than one
must be on the line.

Folder A uses folder B when code in A names something declared in B: a type or a free function or
global at the top level of a file, or a member of an extension whose name is declared nowhere else
in the target. Code is everything but comments and the text of string literals; the code inside a
string's interpolations `\\(...)` is code. Exits 1 naming every arrow against the layers; -v prints
every arrow.

Usage: folder_graph.py [-v] [Sources/Target...]   (every target under Sources by default)
"""
import collections
import os
import re
import sys

MODIFIERS = (r"(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private|final|indirect|"
             r"nonisolated|static|class|override|mutating|nonmutating|consuming|borrowing|lazy|weak|unowned|"
             r"convenience|required|dynamic|open)(?:\([^)]*\))?\s+)*")
TYPE = re.compile(r"^" + MODIFIERS + r"(?:class|struct|enum|protocol|actor|typealias)\s+([A-Z]\w*)", re.M)
FREE = re.compile(r"^" + MODIFIERS + r"(?:func|let|var)\s+(`?\w+`?)", re.M)
EXTENSION = re.compile(r"^" + MODIFIERS + r"extension\s+([\w.]+)")
MEMBER = re.compile(r"^\s*" + MODIFIERS + r"(?:func|let|var|case)\s+(`?\w+`?)")
ANY_DECLARATION = re.compile(
    r"\b(?:func|let|var|case|class|struct|enum|protocol|actor|typealias|associatedtype)\s+(`?\w+`?)"
    r"|(\w+)\s*:(?!:)")  # and parameters and labels
WORD = re.compile(r"\b[A-Za-z_]\w*\b")
HASHES = re.compile(r"#*")


def code_only(text):
    """`text` with comments and the text of string literals blanked; interpolations kept."""
    out = []
    n = len(text)

    def skip_comment(i):
        if text.startswith("//", i):
            end = text.find("\n", i)
            return n if end < 0 else end
        depth, i = 1, i + 2
        while i < n and depth:
            if text.startswith("/*", i):
                depth, i = depth + 1, i + 2
            elif text.startswith("*/", i):
                depth, i = depth - 1, i + 2
            else:
                if text[i] == "\n":
                    out.append("\n")
                i += 1
        return i

    def string(i, hashes, multiline):
        closing = ('"""' if multiline else '"') + "#" * hashes
        escape = "\\" + "#" * hashes
        while i < n:
            if text.startswith(escape, i):
                j = i + len(escape)
                if j < n and text[j] == "(":
                    out.append(" ")
                    i = code(j + 1, interpolation=True)
                    out.append(" ")
                else:
                    i = j + 1
                continue
            if text.startswith(closing, i):
                return i + len(closing)
            if text[i] == "\n":
                if not multiline:
                    return i
                out.append("\n")
            i += 1
        return i

    def code(i, interpolation=False):
        depth = 0
        while i < n:
            c = text[i]
            if text.startswith("//", i) or text.startswith("/*", i):
                i = skip_comment(i)
                continue
            hashes = len(HASHES.match(text, i).group(0)) if c == "#" else 0
            if text.startswith('"', i + hashes):
                multiline = text.startswith('"""', i + hashes)
                out.append('""')
                i = string(i + hashes + (3 if multiline else 1), hashes, multiline)
                continue
            if interpolation and c == "(":
                depth += 1
            elif interpolation and c == ")":
                if depth == 0:
                    return i + 1
                depth -= 1
            out.append(c)
            i += 1
        return i

    code(0)
    return "".join(out)


def declarations(code):
    """(top-level names, extension members, every name declared at any depth) of one file."""
    top = set(TYPE.findall(code)) | {name.strip("`") for name in FREE.findall(code)}
    extension_members, depth, in_extension = set(), 0, False
    for line in code.split("\n"):
        if depth == 0:
            in_extension = bool(EXTENSION.match(line))
        elif depth == 1 and in_extension:
            member = MEMBER.match(line)
            if member:
                extension_members.add(member.group(1).strip("`"))
        depth += line.count("{") - line.count("}")
    everywhere = collections.Counter((keyword or label).strip("`") for keyword, label in ANY_DECLARATION.findall(code))
    return top, extension_members, everywhere


def arrows(root):
    """{folder: {used folder: {names}}} for the Swift files under `root`."""
    files = {}
    for directory, _, names in os.walk(root):
        for name in names:
            if name.endswith(".swift"):
                with open(os.path.join(directory, name)) as source:
                    files[os.path.join(directory, name)] = (os.path.relpath(directory, root), code_only(source.read()))
    owner, declared = {}, collections.Counter()
    members = []
    # Names a folder declares itself, at any depth: a use there is its own (a nested type or a
    # parameter of the same name shadows another folder's).
    own = collections.defaultdict(set)
    for folder, code in files.values():
        top, extension_members, everywhere = declarations(code)
        for name in top:
            owner.setdefault(name, folder)
        declared.update(everywhere)
        own[folder] |= set(everywhere) | top
        members += [(name, folder) for name in extension_members]
    # An extension's member is attributable by name alone only when nothing else has that name.
    for name, folder in members:
        if declared[name] == 1 and name not in owner:
            owner[name] = folder
    uses = collections.defaultdict(lambda: collections.defaultdict(set))
    for folder, code in files.values():
        for word in set(WORD.findall(code)) - own[folder]:
            used = owner.get(word)
            if used is not None and used != folder:
                uses[folder][used].add(word)
    return uses


def declared_layers(path="ARCHITECTURE.md"):
    """{target: [folder, ...]} from the ```layers block: `Target: A > B > C`."""
    with open(path) as document:
        block = re.search(r"^```layers\n(.*?)^```", document.read(), re.M | re.S)
    layers = {}
    for line in (block.group(1) if block else "").splitlines():
        if ":" in line:
            target, order = line.split(":", 1)
            layers[target.strip()] = [folder.strip() for folder in order.split(">")]
    return layers


def folders_of(root):
    return sorted({os.path.relpath(directory, root) for directory, _, names in os.walk(root)
                   if any(name.endswith(".swift") for name in names)})


def main():
    verbose = "-v" in sys.argv
    targets = [argument for argument in sys.argv[1:] if argument != "-v"] or sorted(
        os.path.join("Sources", name) for name in os.listdir("Sources") if os.path.isdir(os.path.join("Sources", name)))
    layers = declared_layers()
    problems = []
    for root in targets:
        target = os.path.basename(root.rstrip("/"))
        uses = arrows(root)
        if verbose:
            for folder in sorted(uses):
                for used in sorted(uses[folder]):
                    print(f"{target}: {folder} -> {used}: {', '.join(sorted(uses[folder][used])[:8])}")
        folders = folders_of(root)
        if len(folders) < 2:
            continue
        order = layers.get(target)
        if order is None:
            problems.append(f"{target}: its folders ({', '.join(folders)}) have no line in ARCHITECTURE.md's layers")
            continue
        for folder in folders:
            if folder not in order:
                problems.append(f"{target}: the folder {folder} is not on its line in ARCHITECTURE.md's layers")
        for folder in sorted(uses):
            for used in sorted(uses[folder]):
                if folder in order and used in order and order.index(used) <= order.index(folder):
                    problems.append(f"{target}: {folder} uses {used}, which its layers put above it "
                                    f"({', '.join(sorted(uses[folder][used])[:6])})")
    for problem in problems:
        print(problem)
    if problems:
        sys.exit(1)
    print(f"the folders of {len(targets)} targets keep their declared layers: no two use each other")


if __name__ == "__main__":
    main()
