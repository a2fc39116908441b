# SPDX-License-Identifier: Apache-2.0

"""More of what the documentation says against what the code does (scripts/check_docs.py): which
keys a reload reconnects for, the placeholders of read_receipt_text, the columns of export, the
hostile peer's ceiling, the tables and indexes of the schema and the unread count, and who follows
through inotify. Each check takes the tree's root and returns its problems, one sentence each,
naming the file and what to write there.
"""
import fnmatch
import glob
import os
import re

from docs_facts import CONF_MAN, DEVELOPMENT, OPERATING, REFERENCE_CONF, loader_keys, read, sources

CONFIGURATION = "Sources/IntrapushConfiguration"
RELOAD = "Sources/IntrapushDaemonKit/Session/SessionLoop+Reload.swift"
RECEIPTS = "Sources/IntrapushStore/NotificationMarker.swift"
USING = "docs/using.md"
EXPORT = "Sources/intrapush/ExportCommand.swift"
RECORD = "Sources/IntrapushInterface/Records/NotificationRecord.swift"
CLI_MAN = "packaging/man/intrapush.1"
HOSTILE = "Tests/Hostile/hostile.py"
PLACES = "Sources/IntrapushDaemonKit/Varlink/ConnectionPlaces.swift"
SCHEMA = "Sources/IntrapushStore/Schema.swift"
VIEWER = "Sources/IntrapushStore/Viewer.swift"
DATABASE = "docs/database.md"
FOLLOW = "Sources/intrapush/FollowCommand.swift"
NOTIFIER_MAN = "packaging/man/intrapush-notifier.1"


def body(text, start):
    """The text of the declaration that begins at `start`, up to the brace that closes its own."""
    depth = 0
    for index in range(text.index("{", start), len(text)):
        depth += {"{": 1, "}": -1}.get(text[index], 0)
        if depth == 0:
            return text[start:index + 1]
    return text[start:]


# ---- The keys a reload reconnects for -----------------------------------------------------------

# Configuration's properties whose name is not their key's (the rest are the key in camel case).
PROPERTY_KEYS = {"hosts": {"host"}, "hostIdentity": {"host_id"}, "token": {"token", "token_file"},
                 "pathTemplate": {"path"}, "clientIdentity": {"tls_cert_file", "tls_key_file"},
                 "everyoneReads": {"readers"}, "tokenSource": set()}


def reconnect_keys(root):
    """The keys whose change makes a reload reconnect: what `requiresReconnect` compares, followed
    through Configuration's computed properties (connection, endpoint, protocolProfile …) down to
    its stored ones, each named by its key. Returns (keys, problems)."""
    stored, derived = set(), {}
    for _, text in sources(root, [CONFIGURATION]):
        struct = re.search(r"^package struct Configuration\b", text, re.M)
        if struct:
            stored |= set(re.findall(r"^    package var (\w+): [^{\n]*$", body(text, struct.start()), re.M))
        for block in re.finditer(r"^extension Configuration\b", text, re.M):
            block_text = body(text, block.start())
            for member in re.finditer(r"^    (?:package |private |fileprivate )?(?:var|func) (\w+)", block_text, re.M):
                derived[member.group(1)] = derived.get(member.group(1), "") + body(block_text, member.start())
    match = re.search(r"let requiresReconnect = (.*)", read(root, RELOAD))
    if not match:
        return set(), [f"{RELOAD} no longer says `let requiresReconnect = …`: tell scripts/docs_facts_more.py "
                       "where a reload decides to reconnect"]
    pending, seen, keys = re.findall(r"\bnew\.(\w+)", match.group(1)), set(), set()
    known = {key.replace("_", ""): key for key in loader_keys(root)}
    problems = []
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        if name in stored:
            key = PROPERTY_KEYS.get(name, {known[name.lower()]} if name.lower() in known else None)
            if key is None:
                problems.append(f"scripts/docs_facts_more.py (PROPERTY_KEYS) does not know which key sets "
                                f"Configuration.{name}, on which a reload's reconnect depends: add it")
            keys |= key or set()
        elif name in derived:
            pending += re.findall(r"\b([a-z]\w*)\b", re.sub(r"//.*", "", derived[name]))
    return keys, problems


def documented_reconnect_keys(root):
    """The keys operating.md's Reloading names as connection settings (`heartbeat_*` stands for
    each key it matches)."""
    match = re.search(r"The\s+connection settings are (.*?)everything the connection is\s+made of", read(root, OPERATING), re.S)
    if not match:
        return None
    keys = loader_keys(root)
    return {key for word in re.findall(r"`([a-z_*]+)`", match.group(1)) for key in keys if fnmatch.fnmatchcase(key, word)}


def check_reload_keys(root):
    code, problems = reconnect_keys(root)
    documented = documented_reconnect_keys(root)
    where = f"{OPERATING} (Reloading: \"The connection settings are …\")"
    if documented is None:
        return problems + [f"{where}: the list of connection settings is missing; name each key a reload reconnects for"]
    problems += [f"{where} does not name {key}, whose change makes a reload reconnect (SessionLoop+Reload.swift "
                 "compares ConnectionSettings): add it" for key in sorted(code - documented)]
    problems += [f"{where} names {key}, which a reload does not reconnect for: take it out" for key in sorted(documented - code)]
    return problems


# ---- read_receipt_text's placeholders -----------------------------------------------------------

def receipt_placeholders(root):
    """What ReadReceiptTemplate.receipt fills in: each `.replacing("{name}"`."""
    text = read(root, RECEIPTS)
    return set(re.findall(r'\.replacing\("(\{\w+\})"', body(text, text.index("func receipt("))))


def placeholder_descriptions(root):
    """{where: placeholders} for each place that describes read_receipt_text, its examples left out."""
    conf_man = read(root, CONF_MAN)
    item = re.search(r"^\.BR read_receipt_text .*?(?=^\.TP|^\.SH)", conf_man, re.M | re.S)
    reference = read(root, REFERENCE_CONF)
    comment = re.search(r"((?:^#(?! read_receipt_text =).*\n)+)^# read_receipt_text = ", reference, re.M)
    using = re.search(r"^- \*\*Read receipts\.\*\* With `read_receipt_text` set(.*?)```", read(root, USING), re.S | re.M)
    found = {}
    for where, match in ((f"{CONF_MAN} (read_receipt_text)", item), (f"{REFERENCE_CONF} (read_receipt_text)", comment),
                         (f"{USING} (Read receipts)", using)):
        found[where] = set(re.findall(r"\{\w+\}", match.group(1 if match and match.groups() else 0))) if match else None
    return found


def check_receipt_placeholders(root):
    code, problems = receipt_placeholders(root), []
    for where, documented in placeholder_descriptions(root).items():
        if documented is None:
            problems.append(f"{where}: no description of read_receipt_text's placeholders found")
            continue
        problems += [f"{where} does not say what {name} becomes, which ReadReceiptTemplate fills in ({RECEIPTS})"
                     for name in sorted(code - documented)]
        problems += [f"{where} names {name}, which ReadReceiptTemplate does not fill in" for name in sorted(documented - code)]
    return problems


# ---- export's columns ----------------------------------------------------------------------------

def record_fields(root):
    match = re.search(r"static let fieldNames = \[(.*?)\]", read(root, RECORD), re.S)
    return re.findall(r'"(\w+)"', match.group(1))


def check_export_columns(root):
    fields, problems = record_fields(root), []
    help_row = re.search(r"\(([a-z_,]+)\)", read(root, EXPORT).replace("\\\n", "").replace(" ", ""))
    if not help_row or help_row.group(1).split(",") != fields:
        problems.append(f"{EXPORT} (export --help) must give the CSV header row the code writes: ({','.join(fields)})")
    man = read(root, CLI_MAN)
    json_keys = re.findall(r"^\.TP\n\.BR? (.*)$", man[man.index(".SS JSON"):man.index(".PP", man.index(".SS JSON"))], re.M)
    listed = [word for line in json_keys for word in re.findall(r"[a-z_]+", line.replace('" ", "', " "))]
    if listed != fields:
        problems.append(f"{CLI_MAN} (JSON) must list the keys {', '.join(fields)} in this order, as "
                        f"NotificationRecord.fieldNames has them (it lists {', '.join(listed)})")
    hook = re.search(r"with the keys\s+of `intrapush list --json` \((.*?)\)", read(root, OPERATING), re.S)
    if not hook or re.findall(r"`(\w+)`", hook.group(1)) != fields:
        problems.append(f"{OPERATING} (the hook's stdin: \"with the keys of `intrapush list --json` (…)\") must list "
                        + ", ".join(f"`{name}`" for name in fields))
    last = re.search(r"after `(\w+)`; all", read(root, USING))
    if not last or last.group(1) != fields[-1]:
        problems.append(f"{USING} (\"--json only grows\") must say later keys come after `{fields[-1]}`")
    return problems


# ---- The hostile peer ----------------------------------------------------------------------------

def check_hostile(root):
    match = re.search(r"^CONNECTIONS_PER_USER = (\d+)", read(root, HOSTILE), re.M)
    share = re.search(r"\.noRights: (\d+)", read(root, PLACES))
    if not match or not share:
        return [f"{HOSTILE} (CONNECTIONS_PER_USER) or {PLACES} (perUser) no longer says a caller's share"]
    kept, problems = int(match.group(1)), []
    if kept != int(share.group(1)):
        problems.append(f"{HOSTILE}: CONNECTIONS_PER_USER is {kept}, but a caller with no right may hold "
                        f"{share.group(1)} ({PLACES}): make them agree")
    section = read(root, DEVELOPMENT).split("## The hostile peer")[-1].split("\n## ")[0]
    stated = re.search(r"must keep at most (\d+)", section)
    if not stated or int(stated.group(1)) != kept:
        problems.append(f"{DEVELOPMENT} (The hostile peer) must say \"the daemon must keep at most {kept}\" of one "
                        f"person's connections, as {HOSTILE} checks")
    return problems


# ---- The schema and the unread count -------------------------------------------------------------

def schema_names(root):
    """Every table, index, trigger and view the migrations create and do not drop."""
    text = read(root, SCHEMA)
    made = re.findall(r"\bCREATE (?:UNIQUE )?(?:TABLE|INDEX|TRIGGER|VIEW) (?:IF NOT EXISTS )?(\w+)", text)
    dropped = set(re.findall(r"\bDROP (?:TABLE|INDEX|TRIGGER|VIEW) (?:IF EXISTS )?(\w+)", text))
    return [name for name in made if name not in dropped]


def code_pattern(swift_string, interpolated):
    """A regex for SQL the code builds: its words as they are, any run of spaces as any, and each
    interpolation `\\(…)` or `?` as `interpolated(what)`."""
    pattern = ""
    for piece in re.split(r"(\\\([^)]*\)|\?|\s+)", swift_string):
        if not piece:
            continue
        pattern += r"\s*" if piece.isspace() else interpolated(piece) if piece == "?" or piece.startswith("\\(") else re.escape(piece)
    return pattern


def check_database(root):
    text, problems = read(root, DATABASE), []
    problems += [f"{DATABASE} does not name `{name}`, which {SCHEMA} creates: describe it"
                 for name in schema_names(root) if not re.search(rf"`{name}\b|\b{name}\s+ON\b", text)]
    viewer = read(root, VIEWER)
    unread = re.findall(r'return "(NOT EXISTS[^"]*)"', viewer)
    line = re.search(r'let line = "([^"]*)"', viewer)
    query = re.search(r"# How many are unread.*?\n\n", text + "\n\n", re.S)
    if not unread or not line:
        return problems + [f"{VIEWER} no longer builds the unread condition as scripts/docs_facts_more.py reads it"]
    number = {r"\(Self.everyone)": "-1"}
    condition = code_pattern(unread[0], lambda what: re.escape(number.get(what, "")) or r"-?\d+")
    addressed = code_pattern(line.group(1), lambda what: r"'[^']*'")
    if not query or not re.search(condition, query.group(0)) or not re.search(addressed, query.group(0)):
        problems.append(f"{DATABASE} (\"# How many are unread\") must count what one person has not read, as {VIEWER} "
                        "does: the rows addressed to them (recipients IS NULL OR instr(…) per name) AND "
                        "NOT EXISTS (SELECT 1 FROM notification_reads r WHERE r.notification_id = notifications.id "
                        "AND r.reader IN (UID, -1))")
    return problems


# ---- Following: inotify for administrators only ---------------------------------------------------

def paragraphs(path, text):
    """Markdown by blank lines and table rows, roff by its paragraph macros, Swift by blank lines."""
    if re.search(r"\.\d$", path):
        return re.split(r"^\.(?:TP|PP|IP|SH|SS|P|LP)\b.*$", text, flags=re.M)
    return [piece for block in re.split(r"\n\s*\n", text) for piece in re.split(r"\n(?=\|)", block)]


def check_follow(root):
    """While follow has a way through the daemon (FollowCommand calls ReadAccess.follow), no text
    may say it follows through inotify without saying whose; and while the desktop agent's code
    never uses inotify, its man page must not say it does."""
    problems = []
    places = (["README.md", "ARCHITECTURE.md"] + sorted(glob.glob("docs/*.md", root_dir=root))
              + sorted(glob.glob("packaging/man/*.[0-9]", root_dir=root)) + [FOLLOW])
    if "ReadAccess.follow(" in read(root, FOLLOW):
        for path in places:
            for paragraph in paragraphs(path, read(root, path)):
                if re.search(r"inotify", paragraph, re.I) and re.search(r"\bfollows?\b", paragraph, re.I) \
                        and not re.search(r"administrator", paragraph, re.I):
                    words = " ".join(re.sub(r"^\.\w+ ", "", paragraph, flags=re.M).split())[:90]  # roff's macros gone
                    problems.append(f"{path}: \"{words}…\" says follow uses inotify: only an administrator's does "
                                    "(anyone else's follows through the local API's Subscribe); say so")
    agent = "".join(text for _, text in sources(root, ["Sources/IntrapushNotifier", "Sources/intrapush-notifier"]))
    if "inotify" not in agent.lower() and "inotify" in read(root, NOTIFIER_MAN).lower():
        problems.append(f"{NOTIFIER_MAN} says the agent uses inotify; it follows through the local API's Subscribe")
    return problems


def check_all(root):
    return (check_reload_keys(root) + check_receipt_placeholders(root) + check_export_columns(root)
            + check_hostile(root) + check_database(root) + check_follow(root))
