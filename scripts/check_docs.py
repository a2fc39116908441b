#!/usr/bin/env python3
"""The documentation stays true (make docs-check, in make check): every relative link and #anchor
in README.md, docs/*.md and ARCHITECTURE.md resolves — the file exists, and the anchor is a heading
of it, by GitHub's rule for heading anchors — and what the code does is what the documentation
says (docs_facts.py): the journal's message ids (JournalEvent) are each in the catalog, in
intrapushd(8) and in operating.md; the exit statuses of intrapushd, intrapush and
intrapush-notifier are each those their man pages, their --help and operating.md list; the keys the
loader knows (ConfigurationKey) are exactly those intrapush.conf(5) describes under KEYS, the
reference config/intrapush.conf shows and operating.md's table sorts; the Makefile's targets are
those development.md's table describes. Exits 1 naming each problem.

--self-test first plants, in a copy of the tree, an event without a line in intrapushd(8), an exit
status the man page does not list and a key intrapush.conf(5) does not describe, and fails unless
each is reported (make docs-check runs it).

Usage: check_docs.py [--self-test]
"""
import glob
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import docs_facts  # noqa: E402

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


def facts(root):
    return (docs_facts.check_message_ids(root) + docs_facts.check_exit_statuses(root) + docs_facts.check_keys(root)
            + docs_facts.check_make_targets(root))


# Each plant: the file it changes, how, and the words the check must report.
PLANTS = [
    ("an event whose MESSAGE_ID intrapushd(8) does not list", docs_facts.JOURNAL_EVENTS,
     lambda text: text.replace("    case outboxGivenUp", "    case planted\n    case outboxGivenUp").replace(
         "        case .outboxGivenUp:", '        case .planted: "0123456789abcdef0123456789abcdef"\n        case .outboxGivenUp:'),
     "packaging/man/intrapushd.8 does not list the MESSAGE_ID of planted"),
    ("an exit status intrapushd(8) does not list", "Sources/IntrapushDaemonKit/Daemon/Daemon.swift",
     lambda text: text + "\nfunc planted() throws { throw DaemonExit(status: 70) }\n",
     "packaging/man/intrapushd.8 (EXIT STATUS) does not document exit status 70"),
    ("a key intrapush.conf(5) does not describe", docs_facts.KEYS,
     lambda text: text.replace("    case readers\n", '    case readers\n    case plantedKey = "planted_key"\n'),
     "packaging/man/intrapush.conf.5 (KEYS) does not document the key planted_key"),
]


def self_test():
    """Each plant, in a copy of what the checks read, must be reported; the copy unplanted must not."""
    failures = []
    with tempfile.TemporaryDirectory(prefix="check-docs-") as copy:
        for path in ("Sources", "packaging", "config", "docs"):
            shutil.copytree(os.path.join(ROOT, path), os.path.join(copy, path))
        shutil.copy(os.path.join(ROOT, "Makefile"), copy)
        if facts(copy):
            return ["the copy of the tree, unplanted, is not clean: " + "; ".join(facts(copy))]
        for what, path, plant, expected in PLANTS:
            target = os.path.join(copy, path)
            with open(target, encoding="utf-8") as file:
                original = file.read()
            planted = plant(original)
            if planted == original:
                failures.append(f"self-test: could not plant {what} in {path}")
                continue
            with open(target, "w", encoding="utf-8") as file:
                file.write(planted)
            found = facts(copy)
            if not any(expected in problem for problem in found):
                failures.append(f"self-test: {what}, planted in {path}, was not reported (expected \"{expected}\")")
            with open(target, "w", encoding="utf-8") as file:
                file.write(original)
    return failures


def main():
    if "--self-test" in sys.argv[1:]:
        failures = self_test()
        for failure in failures:
            print(f"check_docs: {failure}", file=sys.stderr)
        if failures:
            return 1
        print(f"check_docs: self-test: each of {len(PLANTS)} planted mistakes was reported")
    problems = check_links() + facts(ROOT)
    for problem in problems:
        print(f"check_docs: {problem}", file=sys.stderr)
    if problems:
        return 1
    print(f"check_docs: the links and anchors of {len(PAGES)} pages resolve; the {len(docs_facts.code_message_ids(ROOT))} "
          f"message ids, the exit statuses of the three programs, the {len(docs_facts.loader_keys(ROOT))} keys and the "
          f"{len(docs_facts.make_targets(ROOT))} make targets are where the documentation lists them, and no others")
    return 0


if __name__ == "__main__":
    sys.exit(main())
