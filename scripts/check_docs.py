#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The documentation stays true (make docs-check, in make check): every relative link and #anchor
in README.md, docs/*.md and ARCHITECTURE.md resolves — the file exists, and the anchor is a heading
of it, by GitHub's rule for heading anchors — and what the code does is what the documentation
says (docs_facts.py): the journal's message ids (JournalEvent) are each in the catalog, in
intrapushd(8) and in operating.md; the exit statuses of intrapushd, intrapush and
intrapush-notifier are each those their man pages, their --help and operating.md list; the keys the
loader knows (ConfigurationKey) are exactly those intrapush.conf(5) describes under KEYS, the
reference config/intrapush.conf shows and operating.md's table sorts; the Makefile's targets are
those development.md's table describes; and (docs_facts_more.py, docs_ceilings.py) the keys a reload
reconnects for, read_receipt_text's placeholders, export's columns, the hostile peer's ceiling, the
schema's tables and indexes and the unread count of database.md, who follows through inotify,
operating.md's Limits number by number, the unit's connection ceilings, the threads and their
counts, and no limit of the removed control socket. Exits 1 naming each problem.

--self-test first plants each of those mistakes back, one at a time, in a copy of the tree, and
fails unless each is reported (make docs-check runs it); with --verbose it prints what each
planted mistake was reported as.

Usage: check_docs.py [--self-test [--verbose]]
"""
import glob
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import docs_ceilings  # noqa: E402
import docs_facts  # noqa: E402
import docs_facts_more  # noqa: E402

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
            + docs_facts.check_make_targets(root) + docs_facts_more.check_all(root) + docs_ceilings.check_all(root))


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
    # The wrong claims of issue 57, each put back as it was.
    ("the removed control socket's limit in operating.md's Limits", docs_facts.OPERATING,
     lambda text: text.replace("| A `request`'s timeout |", "| Bodies being received on all connections together | 16 MiB, or "
                               "2 × `max_message_size` if larger | refused from the header with `75` |\n| A `request`'s timeout |"),
     "has a row \"Bodies being received on all connections together\" that no check reads from the code"),
    ("the removed control socket's bodies in the unit's ceilings", docs_ceilings.UNIT,
     lambda text: text.replace("(the local API's unfinished messages,", "(bodies being received,"),
     "packaging/intrapush.service names a limit of the removed control socket (\"bodies being received\")"),
    ("a reload's connection settings without tls_pins", docs_facts.OPERATING,
     lambda text: text.replace("`token_file`, `tls`, `ca_file`, `tls_pins`,", "`token_file`, `tls`, `ca_file`,"),
     "does not name tls_pins, whose change makes a reload reconnect"),
    ("read_receipt_text's placeholders without {user}", docs_facts.CONF_MAN,
     lambda text: text.replace(".B {user}\nby the user name of the person who marked it", "by the user name of the person who marked it"),
     "packaging/man/intrapush.conf.5 (read_receipt_text) does not say what {user} becomes"),
    ("export --help with 7 columns", docs_facts_more.EXPORT,
     lambda text: text.replace("read_at,priority,link,recipients)", "read_at)"),
     "Sources/intrapush/ExportCommand.swift (export --help) must give the CSV header row the code writes"),
    ("the hostile peer's 32 connections", docs_facts.DEVELOPMENT,
     lambda text: text.replace("must keep at most 4,", "must keep at most 32,"),
     "docs/development.md (The hostile peer) must say \"the daemon must keep at most 4\""),
    ("a thread row without its cell", docs_ceilings.ARCHITECTURE,
     lambda text: text.replace("| the netlink thread (`NetlinkMonitor`) | rtnetlink link, address and route changes |",
                               "| the netlink thread (`NetlinkMonitor`) | |"),
     "the row \"| the netlink thread (`NetlinkMonitor`) | |…\" needs both cells"),
    ("the unit's 8 threads", docs_ceilings.UNIT,
     lambda text: text.replace("# Tasks: at most 12 threads", "# Tasks: 8 threads"),
     "packaging/intrapush.service must count the daemon's threads as the code has them"),
    ("database.md without notification_reads", docs_facts_more.DATABASE,
     lambda text: text.replace("`notification_reads`", "the table of marks"),
     "docs/database.md does not name `notification_reads`, which Sources/IntrapushStore/Schema.swift creates"),
    ("the unread count of rows nobody read", docs_facts_more.DATABASE,
     lambda text: re.sub(r"(# How many are unread.*?\n)sqlite3.*?;\"\n", r'\1sqlite3 -readonly "$DB" "SELECT count(*) FROM '
                         r'notifications WHERE read_at IS NULL;"\n', text, flags=re.S),
     "docs/database.md (\"# How many are unread\") must count what one person has not read"),
    ("follow through inotify, for everyone", docs_facts_more.CLI_MAN,
     lambda text: re.sub(r"An administrator's waits on inotify.*?neither on a timer\.", "It waits on inotify, not on a timer.", text,
                         flags=re.S),
     "packaging/man/intrapush.1: \"follow Print each new notification as soon as it is stored"),
    ("a local API limit the code changed", docs_ceilings.API_LIMITS,
     lambda text: text.replace("var rowsPerReply = 500", "var rowsPerReply = 400"),
     "\"A list's reply\": Sources/IntrapushDaemonKit/LocalAPI/LocalAPILimits.swift says 400: write \"400 notifications\""),
]


def self_test(verbose=False):
    """Each plant, in a copy of what the checks read, must be reported; the copy unplanted must not."""
    failures = []
    with tempfile.TemporaryDirectory(prefix="check-docs-") as copy:
        for path in ("Sources", "packaging", "config", "docs", "Tests/Hostile"):
            shutil.copytree(os.path.join(ROOT, path), os.path.join(copy, path))
        for path in ("Makefile", "README.md", "ARCHITECTURE.md"):
            shutil.copy(os.path.join(ROOT, path), copy)
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
            found = [problem for problem in facts(copy) if expected in problem]
            if not found:
                failures.append(f"self-test: {what}, planted in {path}, was not reported (expected \"{expected}\")")
            elif verbose:
                print(f"check_docs: self-test: {what}: {found[0]}")
            with open(target, "w", encoding="utf-8") as file:
                file.write(original)
    return failures


def main():
    if "--self-test" in sys.argv[1:]:
        failures = self_test(verbose="--verbose" in sys.argv[1:])
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
          f"{len(docs_facts.make_targets(ROOT))} make targets are where the documentation lists them, and no others; "
          f"the reload's keys, the receipts' placeholders, export's columns, the schema, the limits and the threads "
          f"are those of the code")
    return 0


if __name__ == "__main__":
    sys.exit(main())
