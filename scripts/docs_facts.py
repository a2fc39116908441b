# SPDX-License-Identifier: Apache-2.0
"""What the documentation says against what the code does (scripts/check_docs.py): the journal's
message ids, the programs' exit statuses and the configuration's keys, each read from the code and
from every place that lists them. Each check takes the tree's root and returns its problems, one
sentence each, naming the file and what to write there.
"""
import os
import re
import shlex

JOURNAL_EVENTS = "Sources/IntrapushDaemonKit/Systemd/JournalEvent.swift"
CATALOG = "packaging/intrapush.catalog"
DAEMON_MAN = "packaging/man/intrapushd.8"
CLI_MAN = "packaging/man/intrapush.1"
NOTIFIER_MAN = "packaging/man/intrapush-notifier.1"
CONF_MAN = "packaging/man/intrapush.conf.5"
OPERATING = "docs/operating.md"
KEYS = "Sources/IntrapushConfiguration/Loading/ConfigurationKey.swift"
REFERENCE_CONF = "config/intrapush.conf"
DEVELOPMENT = "docs/development.md"
ID = re.compile(r"\b[0-9a-f]{32}\b")


def read(root, path):
    with open(os.path.join(root, path), encoding="utf-8") as file:
        return file.read()


def section(roff, name):
    """The text of a man page's `.SH name`, up to the next `.SH`."""
    match = re.search(rf"^\.SH {re.escape(name)}\s*$(.*?)(?=^\.SH |\Z)", roff, re.M | re.S)
    return match.group(1) if match else ""


# ---- The journal's message ids -----------------------------------------------------------------

def code_message_ids(root):
    """{event: id} from JournalEvent's `case .event: "id"`."""
    text = read(root, JOURNAL_EVENTS)
    cases = dict(re.findall(r'^\s*case (\w+)(?: = "(\w+)")?\s*$', text, re.M))
    ids = {}
    for case, message_id in re.findall(r'^\s*case \.(\w+): "([0-9a-f]{32})"', text, re.M):
        ids[cases.get(case) or case] = message_id
    return ids


def check_message_ids(root):
    code = code_message_ids(root)
    catalog = set(re.findall(r"^-- ([0-9a-f]{32})\s*$", read(root, CATALOG), re.M))
    problems = [f"{CATALOG} has no entry for the event {event} ({message_id}), which {JOURNAL_EVENTS} logs"
                for event, message_id in sorted(code.items()) if message_id not in catalog]
    problems += [f"{CATALOG} has an entry {message_id} that no event of {JOURNAL_EVENTS} carries"
                 for message_id in sorted(catalog - set(code.values()))]
    for page, text in ((DAEMON_MAN, section(read(root, DAEMON_MAN), "SYSTEMD")), (OPERATING, read(root, OPERATING))):
        listed = set(ID.findall(text))
        problems += [f"{page} does not list the MESSAGE_ID of {event} ({message_id})"
                     for event, message_id in sorted(code.items()) if message_id not in listed]
        problems += [f"{page} lists the MESSAGE_ID {message_id}, which no event carries"
                     for message_id in sorted(listed - set(code.values()))]
    return problems


# ---- Exit statuses ----------------------------------------------------------------------------

def sources(root, folders):
    for folder in folders:
        for directory, _, names in os.walk(os.path.join(root, folder)):
            for name in sorted(names):
                if name.endswith(".swift"):
                    with open(os.path.join(directory, name), encoding="utf-8") as file:
                        yield os.path.relpath(os.path.join(directory, name), root), file.read()


def daemon_statuses(root):
    """Every status intrapushd exits with: 0, the configuration's 78 and each DaemonExit or exit()."""
    found = {0}
    for _, text in sources(root, ["Sources/intrapushd", "Sources/IntrapushDaemonKit"]):
        found.update(int(n) for n in re.findall(r"\b(?:DaemonExit\(status:|ExitCode\()\s*(\d+)\)", text))
        found.update(int(n) for n in re.findall(r"static let exit\w*: Int32 = (\d+)", text))
    return found


def cli_statuses(root):
    """0 and every `CommandFailure.Kind`'s raw value."""
    text = read(root, "Sources/IntrapushQuery/CommandFailure.swift")
    kinds = text[text.index("enum Kind"):]
    kinds = kinds[:kinds.index("\n    }")]
    return {0} | {int(n) for n in re.findall(r"^\s*case \w+ = (\d+)\s*$", kinds, re.M)}


def notifier_statuses(root):
    """0 and each status the agent's command fails with."""
    found = {0}
    for _, text in sources(root, ["Sources/intrapush-notifier"]):
        found.update(int(n) for n in re.findall(r"\bfail\((\d+),", text))
    return found


def man_statuses(roff):
    """The statuses of a man page's EXIT STATUS: each `.TP` item's bold number."""
    return {int(n) for n in re.findall(r"^\.TP\n\.B (\d+)\s*$", section(roff, "EXIT STATUS"), re.M)}


def help_statuses(root, path):
    """The statuses a program's --help names in its `Exit statuses: …` sentence."""
    text = read(root, path)
    match = re.search(r"Exit statuses: (.*?)\.?\s*\"\"\"", text, re.S)
    return {int(n) for n in re.findall(r"(?<![\w.(-])(\d+)\b", match.group(1))} if match else set()


def compare(code, listed, where, program):
    problems = [f"{where} does not document exit status {n} of {program}, which the code exits with"
                for n in sorted(code - listed)]
    problems += [f"{where} documents exit status {n} of {program}, which the code never exits with"
                 for n in sorted(listed - code)]
    return problems


def check_exit_statuses(root):
    daemon, cli, notifier = daemon_statuses(root), cli_statuses(root), notifier_statuses(root)
    problems = compare(daemon, man_statuses(read(root, DAEMON_MAN)), f"{DAEMON_MAN} (EXIT STATUS)", "intrapushd")
    problems += compare(daemon, help_statuses(root, "Sources/intrapushd/Intrapushd.swift"), "intrapushd --help", "intrapushd")
    match = re.search(r"The exit statuses of `intrapushd` \(([\d, ]+)\)", read(root, OPERATING))
    listed = {int(n) for n in re.findall(r"\d+", match.group(1))} if match else set()
    problems += compare(daemon, listed, f"{OPERATING} (\"The exit statuses of `intrapushd` (…)\")", "intrapushd")
    problems += compare(cli, man_statuses(read(root, CLI_MAN)), f"{CLI_MAN} (EXIT STATUS)", "intrapush")
    problems += compare(notifier, man_statuses(read(root, NOTIFIER_MAN)), f"{NOTIFIER_MAN} (EXIT STATUS)", "intrapush-notifier")
    problems += compare(notifier, help_statuses(root, "Sources/intrapush-notifier/IntrapushNotifierCommand.swift"),
                        "intrapush-notifier --help", "intrapush-notifier")
    return problems


# ---- Configuration keys -----------------------------------------------------------------------

def loader_keys(root):
    text = read(root, KEYS)
    body = text[text.index("enum ConfigurationKey"):]
    body = body[:body.index("\n}")]
    return {raw or name for name, raw in re.findall(r"^\s*case (\w+)(?: = \"([^\"]+)\")?\s*$", body, re.M)}


def man_keys(root):
    """The keys intrapush.conf(5) describes under KEYS: the bold names of each .TP (or .TQ) item's tag line."""
    keys = set()
    lines = section(read(root, CONF_MAN), "KEYS").split("\n")
    for tag, line in zip(lines, lines[1:]):
        if tag.strip() not in (".TP", ".TQ") or not re.match(r"^\.BR? ", line):
            continue
        try:
            words = shlex.split(line.partition(" ")[2])
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


def reference_keys(root):
    """The keys config/intrapush.conf shows, each as a commented `# key = …` line."""
    return set(re.findall(r"^# ([a-z][a-z_]*[a-z]) = ", read(root, REFERENCE_CONF), re.M))


def operating_keys(root):
    """The keys of operating.md's table of what each key shapes (its first column)."""
    text = read(root, OPERATING)
    table = text[text.index("| keys | what they shape | more |"):]
    rows = table.split("\n\n")[0].split("\n")[2:]
    return {key for row in rows for key in re.findall(r"`([a-z_]+)`", row.split("|")[1])}


def check_keys(root):
    known = loader_keys(root)
    problems = []
    for where, documented in ((f"{CONF_MAN} (KEYS)", man_keys(root)), (REFERENCE_CONF, reference_keys(root)),
                              (f"{OPERATING} (the table of keys)", operating_keys(root))):
        problems += [f"{where} does not document the key {key}" for key in sorted(known - documented)]
        problems += [f"{where} documents {key}, which the loader does not know" for key in sorted(documented - known)]
    return problems


# ---- Make targets -----------------------------------------------------------------------------

def make_targets(root):
    """The Makefile's targets: those it declares .PHONY."""
    return {target for line in re.findall(r"^\.PHONY:(.*)$", read(root, "Makefile"), re.M) for target in line.split()}


def documented_targets(root):
    """The targets development.md's table of make targets names: `make X` in its first column."""
    rows = re.findall(r"^\| (`make[^|]*)\|", read(root, DEVELOPMENT), re.M)
    return {target for cell in rows for target in re.findall(r"`make ?([a-z-]*)`", cell)} | {"all"}


def check_make_targets(root):
    made, documented = make_targets(root), documented_targets(root) - {""}
    return ([f"{DEVELOPMENT} (Make targets) does not describe make {target}" for target in sorted(made - documented)]
            + [f"{DEVELOPMENT} (Make targets) describes make {target}, which the Makefile does not have"
               for target in sorted(documented - made)])
