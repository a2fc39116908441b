#!/usr/bin/env python3
"""The documentation stays true (make test): every relative link and #anchor in README.md,
docs/*.md and ARCHITECTURE.md resolves — the file exists, and the anchor is a heading of it, by
GitHub's rule for heading anchors — and intrapush.conf(5) documents exactly the keys the loader
knows (Sources/IntrapushConfiguration/Loading/ConfigurationKey.swift): none missing, none it does
not know. Exits 1 naming each problem.

Usage: check_docs.py
"""
import glob
import os
import re
import shlex
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGES = ["README.md", "ARCHITECTURE.md"] + sorted(glob.glob("docs/*.md", root_dir=ROOT))
LINK = re.compile(r"(?<!!)\[(?:[^\[\]]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")


def without_code(text):
    """The text with fenced blocks and inline code spans blanked: a link there is an example."""
    lines, fenced = [], False
    for line in text.split("\n"):
        if FENCE.match(line):
            fenced = not fenced
            lines.append("")
            continue
        lines.append("" if fenced else re.sub(r"`[^`]*`", lambda m: " " * len(m.group()), line))
    return "\n".join(lines)


def slug(heading):
    """GitHub's anchor of a heading: lower case, markup and punctuation other than - and _ gone,
    spaces as hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
    text = re.sub(r"<[^>]+>", "", text).lower()
    text = "".join(c for c in text if c.isalnum() or c in "-_ ")
    return text.replace(" ", "-")


def anchors(path):
    """Every heading anchor of a Markdown file, duplicates numbered as GitHub numbers them."""
    seen, found, fenced = {}, set(), False
    with open(path, encoding="utf-8") as file:
        for line in file:
            if FENCE.match(line):
                fenced = not fenced
                continue
            match = None if fenced else HEADING.match(line)
            if not match:
                continue
            base = slug(match.group(2))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
    return found


def check_links():
    problems = []
    cache = {}
    for page in PAGES:
        path = os.path.join(ROOT, page)
        with open(path, encoding="utf-8") as file:
            text = without_code(file.read())
        # The whole text at once: a link's words may wrap onto the next line.
        for match in LINK.finditer(text):
            target, number = match.group(1), text.count("\n", 0, match.start()) + 1
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:, man:
                continue
            file_part, _, anchor = target.partition("#")
            resolved = path if not file_part else os.path.normpath(os.path.join(os.path.dirname(path), file_part))
            where = f"{page}:{number}: {target}"
            if not os.path.exists(resolved):
                problems.append(f"{where}: no such file")
                continue
            if anchor and resolved.endswith(".md"):
                known = cache.setdefault(resolved, anchors(resolved))
                if anchor not in known:
                    problems.append(f"{where}: no heading #{anchor} in {os.path.relpath(resolved, ROOT)}")
    return problems


def loader_keys():
    with open(os.path.join(ROOT, "Sources/IntrapushConfiguration/Loading/ConfigurationKey.swift"), encoding="utf-8") as file:
        text = file.read()
    body = text[text.index("enum ConfigurationKey"):]
    body = body[:body.index("\n}")]
    keys = set()
    for name, raw in re.findall(r"^\s*case (\w+)(?: = \"([^\"]+)\")?\s*$", body, re.M):
        keys.add(raw or name)
    return keys


def documented_keys():
    """The keys intrapush.conf(5) describes: the bold names of each .TP (or .TQ) item's tag line."""
    keys = set()
    with open(os.path.join(ROOT, "packaging/man/intrapush.conf.5"), encoding="utf-8") as file:
        lines = file.read().split("\n")
    for tag, line in zip(lines, lines[1:]):
        if tag.strip() not in (".TP", ".TQ") or not re.match(r"^\.BR? ", line):
            continue
        macro, _, rest = line.partition(" ")
        try:
            words = shlex.split(rest)
        except ValueError:
            continue
        # The first bold word, and those joined to it by ", " or " and " (tls_cert_file, tls_key_file);
        # a default's value, bold too, follows other words.
        named = [words[0]]
        for joint, word in zip(words[1::2], words[2::2]):
            if joint.strip(" ,") not in ("", "and"):
                break
            named.append(word)
        keys.update(word for word in named if re.fullmatch(r"[a-z][a-z_]*[a-z]", word))
    return keys


def check_keys():
    known, documented = loader_keys(), documented_keys()
    return ([f"intrapush.conf(5) does not document the key {key}" for key in sorted(known - documented)]
            + [f"intrapush.conf(5) documents {key}, which the loader does not know" for key in sorted(documented - known)])


def main():
    problems = check_links() + check_keys()
    for problem in problems:
        print(f"check_docs: {problem}", file=sys.stderr)
    if problems:
        return 1
    print(f"check_docs: the links and anchors of {len(PAGES)} pages resolve; intrapush.conf(5) documents the "
          f"{len(loader_keys())} keys the loader knows, and no other")
    return 0


if __name__ == "__main__":
    sys.exit(main())
