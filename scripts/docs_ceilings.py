# SPDX-License-Identifier: Apache-2.0

"""The daemon's ceilings in the documentation against the code (scripts/check_docs.py): the rows of
operating.md's Limits, number by number from the files that hold them; the local API's connection
ceilings the unit's comment counts; the threads ARCHITECTURE.md lists and the unit, operating.md and
ARCHITECTURE.md count; and no limit of the removed control socket. Each check takes the tree's root
and returns its problems, one sentence each, naming the file and what to write there.
"""
import os
import re

from docs_facts import OPERATING, read, sources

UNIT = "packaging/intrapush.service"
ARCHITECTURE = "ARCHITECTURE.md"
THREAD_NAMES = "Sources/IntrapushDaemonKit/Runtime/ThreadName.swift"
WORKER_THREAD = "Sources/IntrapushDaemonKit/Runtime/WorkerThread.swift"
CALLER_NAMES = "Sources/IntrapushDaemonKit/LocalAPI/CallerNames.swift"
PLACES = "Sources/IntrapushDaemonKit/Varlink/ConnectionPlaces.swift"
ADMISSION = "Sources/IntrapushDaemonKit/Varlink/VarlinkAdmission.swift"
API_LIMITS = "Sources/IntrapushDaemonKit/LocalAPI/LocalAPILimits.swift"
WRITES = "Sources/IntrapushDaemonKit/LocalAPI/WriteBudget.swift"
QUERIES = "Sources/IntrapushDaemonKit/LocalAPI/QueryRunner.swift"
MARKS = "Sources/IntrapushDaemonKit/Storage/LocalMarks.swift"
SUBSCRIPTIONS = "Sources/IntrapushDaemonKit/LocalAPI/Subscriptions.swift"
METRICS = "Sources/IntrapushDaemonKit/Metrics/MetricsServer.swift"
DURATIONS = "Sources/IntrapushConfiguration/Values/DurationParser.swift"

WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]


def value(root, path, pattern):
    """The number a declaration in `path` gives, `pattern`'s group 1: `4096`, `16_384`, `64 << 10`,
    `.seconds(2)`, `.minutes(5)`, `.milliseconds(1)` (durations in seconds, as a float for less)."""
    match = re.search(pattern, read(root, path))
    if not match:
        return None
    text = match.group(1).replace("_", "")
    unit = re.fullmatch(r"\.(seconds|minutes|milliseconds)\((\d+)\)", text)
    if unit:
        return int(unit.group(2)) * {"seconds": 1, "minutes": 60, "milliseconds": 0.001}[unit.group(1)]
    return eval(text, {"__builtins__": {}}) if re.fullmatch(r"[\d\s<*+()]+", text) else None  # digits and shifts only


def count(n):
    return f"{n:,}"


def size(n):
    for unit, shift in (("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n} bytes"


def duration(seconds):
    if seconds < 1:
        return f"{round(seconds * 1000)} ms"
    return f"{WORDS[seconds // 60]} minutes" if seconds % 60 == 0 and seconds >= 120 else f"{seconds} s"


def either(n, then=""):
    """The number in digits, or as a word when it is small: both read as the same."""
    return [f"{count(n)}{then}"] + ([f"{WORDS[n]}{then}"] if n < len(WORDS) else [])


# Each row of operating.md's Limits whose numbers the code holds: the row's first cell, then each
# number as (file, the declaration's pattern, how the row writes it).
LIMITS = {
    "Local API connections of one uid": [
        (PLACES, r"\.noRights: (\d+), \.person", lambda n: f"{n} with no right"),
        (PLACES, r"\.person: (\d+), \.administrator", lambda n: f"{count(n)} for a person"),
        (PLACES, r"\.administrator: (\d+)\]", lambda n: f"{count(n)} for an administrator")],
    "Local API connections of a class, and in all": [
        (PLACES, r"pools: .*?\.noRights: (\d+)", lambda n: f"{n} for callers with no right"),
        (PLACES, r"pools: .*?\.person: (\d+)\]", lambda n: f"{count(n)} for people"),
        (PLACES, r"var total = (\d+)", lambda n: f"{count(n)} in all")],
    "Connections waiting to be told `Busy`": [
        (ADMISSION, r"var refusalsAnswered = (\d+)", lambda n: f"{n}, "),
        (ADMISSION, r"var refusalDeadline: TimeAmount = (\.\w+\(\d+\))", lambda s: f"{duration(s)} each")],
    "One message on the local API": [
        (ADMISSION, r"max\((1 << 20), maximumMessageSize \* 6", lambda n: f"max({size(n)}, "),
        (ADMISSION, r"maximumMessageSize \* (6) \+", lambda n: f"{n} × `max_message_size`"),
        (ADMISSION, r"maximumMessageSize \* 6 \+ (\d+)\)", lambda n: f"+ {size(n)})"),
        (ADMISSION, r"var longestMessageWithoutRights = ([\d <]+)\n", lambda n: f"{size(n)} for a caller with no right")],
    "Unfinished messages of one person, and of all together": [
        (ADMISSION, r"(\d) \* longestMessage\(maximumMessageSize: maximumMessageSize, of: place\)",
         lambda n: f"{WORDS[n]} of their longest"),
        (ADMISSION, r"var leastTotalBytes = ([\d <]+)\n", lambda n: f"max({size(n)}, "),
        (ADMISSION, r"max\(leastTotalBytes, (\d) \*", lambda n: f"{WORDS[n]} of the longest")],
    "A person's writes waiting for the push loop": [
        (WRITES, r"var writesPerPerson = (\d+)", lambda n: f"{n}, or marks"),
        (WRITES, r"var idsPerPerson = (\d+)", lambda n: f"marks of {count(n)} ids")],
    "The push loop's time for the local API's marks": [
        (MARKS, r"static let rowsWhilePushesFlow = (\d+)", lambda n: f"at most {n} rows"),
        (MARKS, r"pause: .*? = \((\.\w+\(\d+\))", lambda s: f"({duration(s)} apart)"),
        (MARKS, r"static let rowsWhenQuiet = (\d+)", lambda n: f"{n} when none came lately")],
    "A connection with no call in progress": [
        (ADMISSION, r"var idleDeadline: TimeAmount = (\.\w+\(\d+\))", lambda s: f"| {duration(s)} |")],
    "One person's reads": [
        (QUERIES, r"static let idsPerQuickPiece: Int64 = (\d+)", lambda n: f"at most {count(n)} ids"),
        (QUERIES, r"static let idsPerScanPiece: Int64 = (\d+)", lambda n: f"a piece of {count(n)} ids"),
        (API_LIMITS, r"var maximumWaitingQueries = (\d+)", lambda n: either(n, " waiting"))],
    "Looking up a caller's user and groups (NSS)": [
        (CALLER_NAMES, r"static let threads = (\d+)", lambda n: either(n, " threads of their own")),
        (CALLER_NAMES, r"static let keptFor: TimeAmount = (\.\w+\(\d+\))", lambda s: f"kept {duration(s)}")],
    "A list's reply": [
        (API_LIMITS, r"var rowsPerReply = (\d+)", lambda n: f"{count(n)} notifications"),
        (API_LIMITS, r"var bytesPerReply = ([\d <]+)\n", lambda n: f"or {size(n)} with `more`"),
        (API_LIMITS, r"var largestList = (\d+)", lambda n: f"without, {count(n)} and"),
        (API_LIMITS, r"var largestListBytes = ([\d <]+)\n", lambda n: f"and {size(n)} (the first")],
    "A subscriber that does not read": [
        (SUBSCRIPTIONS, r"static let dropAfter: TimeAmount = (\.\w+\(\d+\))", lambda s: f"| {duration(s)} while")],
    "A `request`'s timeout": [
        (DURATIONS, r"maximumNanoseconds: Int64 = (\d+) \* 365 \* 24 \* 3600 \* 1_000_000_000", lambda years: f"1 ms – {years} years")],
    "Scrapers connected to `metrics_listen`": [
        (METRICS, r"static let maximumConnections = (\d+)", lambda n: f"{n} at once"),
        (METRICS, r"static let idleTimeout: TimeAmount = (\.\w+\(\d+\))", lambda s: f"closed after {duration(s)}")],
}

# Rows whose numbers are not yet read from the code (the connection to the server, the hooks, the
# configuration's parser, the desktop agent): a row that is in neither list is a limit nobody
# checks, as the removed control socket's were.
UNCHECKED = [
    "The server's answer to the upgrade", "A frame's header", "One message from the server", "Fragments of one message",
    "Pushes waiting for their commit", "What we write and the server does not read", "A server's retry hint",
    "A push's message id", "Hooks waiting for a free slot", "A notification's fields in the hook's environment",
    "The hook's environment", "Calls on one connection", "Nesting of arrays and inline tables",
    "Control characters from outside in log lines", "A push's recipients", "What the desktop agent hands",
    "Notifications shown at once", "The agent's memory",
]

# What the control socket, removed in 0.7, limited; the local API's ceilings replaced them.
RETIRED = ["bodies being received", "refused from the header"]


def limit_rows(root):
    text = read(root, OPERATING)
    table = text[text.index("| What | Limit | When reached |"):].split("\n\n")[0]
    return [row for row in table.split("\n")[2:] if row.startswith("|")]


def check_limits(root):
    problems, seen = [], set()
    for row in limit_rows(root):
        what = row.split("|")[1].strip()
        known = [name for name in LIMITS if what.startswith(name)]
        if not known:
            if not any(what.startswith(name) for name in UNCHECKED):
                problems.append(f"{OPERATING} (Limits) has a row \"{what}\" that no check reads from the code: "
                                "if the code has that limit, add it to LIMITS in scripts/docs_ceilings.py; if not, "
                                "remove the row")
            continue
        seen.add(known[0])
        for path, pattern, written in LIMITS[known[0]]:
            number = value(root, path, pattern)
            if number is None:
                problems.append(f"scripts/docs_ceilings.py: {path} no longer declares /{pattern}/ (for \"{what}\"): "
                                "read the limit where it now is")
                continue
            texts = written(number)
            texts = texts if isinstance(texts, list) else [texts]
            if not any(text in row for text in texts):
                problems.append(f"{OPERATING} (Limits), \"{what}\": {path} says {number}: write \"{texts[0].strip(' |')}\"")
    problems += [f"{OPERATING} (Limits) has no row \"{name}\", a ceiling the code has" for name in LIMITS if name not in seen]
    return problems


def check_unit(root):
    """The unit's comment counts the local API's connection places as ConnectionPlaces has them."""
    comment = " ".join(line.lstrip("# ") for line in read(root, UNIT).split("\n") if line.startswith("#"))
    places = read(root, PLACES)
    numbers = {name: int(n) for name, n in re.findall(r"\.(\w+): (\d+)", places.split("var pools")[0].split("var perUser")[1])}
    pools = {name: int(n) for name, n in re.findall(r"\.(\w+): (\d+)", places.split("var pools")[1].split("\n")[0])}
    total = value(root, PLACES, r"var total = (\d+)")
    refusals = value(root, ADMISSION, r"var refusalsAnswered = (\d+)")
    scrapers = value(root, METRICS, r"static let maximumConnections = (\d+)")
    expected = [f"{count(total)} local API connections", f"{numbers['noRights']} per uid and {pools['noRights']} in all",
                f"{numbers['person']} per person and {count(pools['person'])} for people",
                f"{count(numbers['administrator'])} per administrator",
                f"{refusals} refusals", f"{scrapers} scrapers"]
    return [f"{UNIT}: the comment on the ceilings must say \"{text}\", as the code has it" for text in expected if text not in comment]


def check_retired(root):
    places = ["README.md", ARCHITECTURE, UNIT] + [os.path.join("docs", name) for name in sorted(os.listdir(os.path.join(root, "docs")))
                                                  if name.endswith(".md")]
    places += [os.path.join("packaging/man", name) for name in sorted(os.listdir(os.path.join(root, "packaging/man")))]
    return [f"{path} names a limit of the removed control socket (\"{phrase}\"): the local API's limits are "
            f"those of {OPERATING}'s Limits" for path in places if os.path.isfile(os.path.join(root, path))
            for phrase in RETIRED if phrase in read(root, path).lower()]


# ---- Threads -------------------------------------------------------------------------------------

def threads(root):
    """(names, unnamed, name threads, at most): ThreadName's names, the threads the daemon starts
    without one (pthread_create outside WorkerThread, and the main thread), how many name look-ups
    run at once, and how many threads run at most besides those."""
    names = re.findall(r'^\s*case \w+ = "(intrapush-[\w-]+)"', read(root, THREAD_NAMES), re.M)
    unnamed = 1 + sum(text.count("pthread_create(") for path, text in sources(root, ["Sources/IntrapushDaemonKit"])
                      if path != WORKER_THREAD)
    lookups = value(root, CALLER_NAMES, r"static let threads = (\d+)")
    return names, unnamed, lookups, len(names) - 1 + unnamed


def check_threads(root):
    names, unnamed, lookups, most = threads(root)
    text, problems = read(root, ARCHITECTURE), []
    section = text[text.index("## Threads of intrapushd"):].split("\n\n")[1]
    rows = [row for row in section.split("\n")[2:] if row.startswith("|")]
    for row in rows:
        cells = [cell.strip() for cell in row.strip().strip("|").split(" | ")]
        if len(cells) != 2 or not all(cells):
            problems.append(f"{ARCHITECTURE} (Threads of intrapushd): the row \"{row[:60]}…\" needs both cells, the "
                            "thread and what runs there")
    listed = {name for row in rows for name in re.findall(r"`(intrapush-[\w-]+)`", row.split(" | ")[0])}
    problems += [f"{ARCHITECTURE} (Threads of intrapushd) has no row for the thread {name} ({THREAD_NAMES}): add it"
                 for name in names if name not in listed]
    problems += [f"{ARCHITECTURE} (Threads of intrapushd) lists {name}, which {THREAD_NAMES} does not name"
                 for name in sorted(listed - set(names))]
    anonymous = sum(1 for row in rows if not re.search(r"`intrapush-", row.split(" | ")[0]))
    if anonymous != unnamed:
        problems.append(f"{ARCHITECTURE} (Threads of intrapushd) has {anonymous} rows of threads without a name; the code "
                        f"starts {unnamed} (the main thread and each pthread_create outside WorkerThread)")
    stated = f"at most {most} threads (and up to {lookups} more while callers' names are looked up"  # a link may follow
    for path, where in ((UNIT, read(root, UNIT)), (OPERATING, read(root, OPERATING)), (ARCHITECTURE, section_text(text))):
        flat = " ".join(line.lstrip("# ") for line in where.split("\n"))
        wrong = [n for n in re.findall(r"\b(\d+) threads\b", flat) if int(n) != most] + re.findall(r"a dozen threads", flat)
        wrong += [n for n in re.findall(r"threads \(and up to (\d+) more while", flat) if int(n) != lookups]
        if stated not in flat or wrong:
            problems.append(f"{path} must count the daemon's threads as the code has them: \"{stated})\"")
    return problems


def section_text(text):
    return text[text.index("## Threads of intrapushd"):].split("\n## ")[0]


def check_all(root):
    return check_limits(root) + check_unit(root) + check_retired(root) + check_threads(root)
