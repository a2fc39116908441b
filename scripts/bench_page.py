# SPDX-License-Identifier: Apache-2.0
"""docs/performance.md's generated blocks, from what one `make bench` measured (.build/bench.json):

- summary: the first screen, what a user gets (a push acknowledged, the idle cost, the ingest
  rate, the neighbours' effect), each with its picture when it was drawn from the same record;
- targets: every target of the run, met or missed, and why one is missed or cannot be met;
- table: every figure of the run, min, median and max.

Each block stands between `<!-- bench NAME: … -->` and `<!-- bench NAME: end -->`. The numbers are
read from the rows' values, as the table prints them, so that the page's sentences and its table
cannot disagree; a figure the record lacks is said to be missing, never filled in.
"""
import os
import re

NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")


def find(record, start, contains=""):
    """The first row whose figure starts with `start` and contains `contains`, measured."""
    for row in record["rows"]:
        if row["figure"].startswith(start) and contains in row["figure"] and not row["error"] and row["values"]:
            return row
    return None


def numbers(row, which=1):
    """The numbers of a row's min (0), median (1) or max (2), as printed."""
    return NUMBER.findall(row["values"][which]) if row else []


def value(text):
    return float(text.replace(",", ""))


def ms(text):
    """A time as a sentence says it: two significant digits, whole milliseconds from 10 on."""
    number = value(text)
    return f"{number:.0f}" if number >= 10 else f"{number:.2g}"


def run_line(record):
    commit = f"commit `{record['commit']}`"
    if record["uncommitted_changes"]:
        commit += " **with changes not committed: no commit reproduces these figures**"
    smoke = " **(a smoke run: tiny sizes, nothing judged)**" if record["smoke"] else ""
    return (f"Measured by `make bench` on {commit}, {record['date']}, on {record['cpus']} CPUs (load average "
            f"{record['load_average_at_end']} at the end), in {record['seconds'] // 60} min{smoke}")


MISSING = "_(not in this run's record)_"


def picture(drawn, name, alt, figures):
    return f"\n![{alt}]({figures}/{name})\n" if name in drawn else ""


def summary(record, drawn, figures):
    """The first screen: one paragraph per thing a user gets, each followed by its picture."""
    lines = [f"On the development machine (KVM, virtio disk), as {run_line(record)[0].lower()}{run_line(record)[1:]}:"]

    p50, p99 = numbers(find(record, "Latency p50 at")), numbers(find(record, "Latency p99 at"))
    bare, raw = numbers(find(record, "Bare SQLite commit")), numbers(find(record, "Latency from a raw-socket"))
    if p50 and p99 and len(bare) == 2 and len(raw) == 2:
        lines.append(f"**A push is acknowledged in {ms(p50[0])} ms at p50**, {ms(p99[0])} ms at p99, at a steady 1,000 "
                     f"pushes/s, and only once its row is committed and synced to the disk. The disk alone commits the "
                     f"same row in {ms(bare[0])} ms at p50 ({ms(bare[1])} ms at p99); pushed from a second, unrelated server "
                     f"(Python on a raw socket), the same daemon answers in {ms(raw[0])} ms at p50 and {ms(raw[1])} ms at p99.")
    else:
        lines.append(f"**A push acknowledged**: {MISSING}")
    lines.append(picture(drawn, "latency.svg", "Push → ack at a steady 1,000 pushes/s: the share of pushes answered within "
                         "each time, beside the bare commit of the same rows on the same disk", figures))

    rss, anon = numbers(find(record, "Idle memory: VmRSS")), numbers(find(record, "Idle memory: RssAnon"))
    cpu, wakes = numbers(find(record, "Idle CPU")), numbers(find(record, "Idle wake-ups"))
    syncs, threads = numbers(find(record, "Idle disk syncs")), numbers(find(record, "Idle thread creations"))
    heartbeat = re.search(r"heartbeat ([\d.]+ s)", (find(record, "Idle memory: VmRSS") or {}).get("method", ""))
    if rss and anon and cpu and wakes and syncs and threads:
        lines.append(f"**Waiting, connected, it holds {rss[0]} MiB of memory**, {anon[0]} MiB of it its own (the rest is its "
                     f"binary and libraries, mapped from the disk), spends {cpu[0]} ms of CPU a minute, wakes "
                     f"{wakes[0]} times a minute{f' with a heartbeat every {heartbeat.group(1)}' if heartbeat else ''}; "
                     f"in a minute it syncs the disk {syncs[0]} times and starts {threads[0]} threads.")
    else:
        lines.append(f"**The idle cost**: {MISSING}")
    lines.append(picture(drawn, "idle.svg", "The idle daemon's memory, CPU, wake-ups, disk syncs and thread creations "
                         "a minute, each against its budget", figures))

    empty, full = find(record, "Durable ingest, empty DB"), find(record, "Durable ingest, ", "-row DB")
    ratio, batched = numbers(find(record, "Ingest ÷ bare batched insert")), numbers(find(record, "Bare batched insert"))
    if empty and full and ratio and batched:
        rows = full["figure"].split(", ")[-1].replace("-row DB", "")
        lines.append(f"**It stores {numbers(empty)[0]} pushes a second** from a burst, each committed and synced before "
                     f"its acknowledgement: {ratio[0]}× what the disk takes when the same rows are inserted bare, 1,000 "
                     f"to a transaction, in the same run ({batched[0]}/s); {numbers(full)[0]}/s with {rows} rows stored.")
    else:
        lines.append(f"**The ingest rate**: {MISSING}")
    lines.append(picture(drawn, "ingest.svg", "Durable ingest, each run, beside the bare batched insert of the same rows "
                         "on the same disk in the same run, and the target", figures))

    beside = [(label, find(record, "Neighbours: push → ack beside", words)) for label, words in
              (("a reader's pipelined marks", "oneway marks"), ("a mark of all", "mark of all"),
               ("four searches over the rows", "four searches"))]
    page = numbers(find(record, "Neighbours: another reader's page of 20 beside the searches"))
    if all(row for _, row in beside) and len(page) >= 2:
        ratios = [value(numbers(row)[0]) for _, row in beside]
        worst = max(value(numbers(row, 2)[1]) for _, row in beside)
        lines.append(f"**Beside other people's work on the host, a push's p99 is {min(ratios):.2f}–{max(ratios):.2f}× its "
                     f"p99 with nobody beside it** (medians of the rounds): " +
                     ", ".join(f"{numbers(row)[0]}× beside {label}" for label, row in beside) +
                     f"; the slowest push of all those rounds took {worst:g} ms. Another reader's page of 20 comes in "
                     f"{page[1]} ms at p90 beside the searches.")
    else:
        lines.append(f"**The neighbours' effect**: {MISSING}")
    lines.append(picture(drawn, "neighbours.svg", "Push → ack p99 beside each neighbour ÷ the same round's p99 with "
                         "nobody beside it, each round, and the targets", figures))
    return "\n\n".join(line.strip("\n") for line in lines if line)


def latency_floor(record):
    """Why an absolute latency target is out of this disk's reach, or None."""
    bare, transport = numbers(find(record, "Bare SQLite commit")), numbers(find(record, "Transport only"))
    if len(bare) < 2 or len(transport) < 2:
        return None
    return value(bare[0]), value(bare[1]), value(transport[0])


def limit(row):
    """The number of a target such as "≤ 0.5 ms"."""
    found = re.search(r"≤ ([\d.]+)", row["target"])
    return float(found.group(1)) if found else None


def reason_p50(record, row):
    floor = latency_floor(record)
    if not floor:
        return "no bare commit in the record to say why."
    bare50, _, transport50 = floor
    if bare50 + transport50 > (limit(row) or 0):
        return (f"cannot be met on this disk: the disk commits a row alone in {ms(str(bare50))} ms at p50 and the transport "
                f"alone takes {ms(str(transport50))} ms, before the daemon does anything. " + reason_overhead(record))
    return f"the disk commits a row alone in {ms(str(bare50))} ms at p50. " + reason_overhead(record)


def reason_overhead(record):
    p50, bare = numbers(find(record, "Latency p50 at")), numbers(find(record, "Bare SQLite commit"))
    if not p50 or not bare:
        return ""
    added = value(p50[0]) - value(bare[0])
    return (f"Restated: what the daemon and the transport add to the bare commit at p50, ≤ 0.25 ms: {added:.2f} ms in "
            f"this run ({'met' if added <= 0.25 else '**missed**'}).")


def reason_p99(record, row):
    floor = latency_floor(record)
    if floor and floor[1] > (limit(row) or 0):
        return (f"cannot be met on this disk: its bare commit's own p99 is {ms(str(floor[1]))} ms. Restated: ≤ 2× the "
                f"bare commit's p99, the ratios below.")
    return "the tail is longer than the disk's own: the ratios below."


def reason_ratio(record, row):
    mine = numbers(row)
    if len(mine) < 2:
        return "not explained yet."
    tmpfs, bare = numbers(find(record, "Daemon on tmpfs")), numbers(find(record, "Bare SQLite commit"))
    parts = []
    if value(mine[0]) > 1.3 and tmpfs and bare:
        parts.append(f"at p50, the daemon on tmpfs (the transport and the daemon's own work, no disk) takes {ms(tmpfs[0])} "
                     f"ms, {value(tmpfs[0]) / value(bare[0]):.2f}× this disk's commit of {ms(bare[0])} ms: 1.3× asks for a "
                     f"disk whose commit takes over three times that work, so it holds on slow disks only; restated above "
                     f"as that work ≤ 0.25 ms")
    if value(mine[1]) > 2:
        text = ("at p99, a push that arrives while the commit before it still runs waits for it, which the bare commit, "
                "timed from its own start, never does (the table's \"bare commit from its slot\")")
        raw = numbers(find(record, "Raw-socket latency ÷ bare commit"))
        if row["figure"].startswith("Latency ÷") and len(raw) > 1 and value(raw[1]) <= 2:
            text += (f"; yet pushed from the raw-socket server in the same runs, the same daemon's p99 was {raw[1]}×: "
                     f"what the devserver sees beyond that ({mine[1]}×) lies between it and the daemon, on the two cores "
                     f"both use, and is not explained yet")
        parts.append(text)
    return "; ".join(parts) + "." if parts else "not explained yet."


def reason_share(record, row):
    share = numbers(row)
    verdict = f" ({'met' if share and value(share[0]) <= 17 else '**missed**'})"
    return ("cannot be met by 200 daemons: each one's first wait is uniform in [0, reconnect_min] (full jitter), and 200 "
            "uniform draws put 15 % of them in the busiest 100 ms (the median of 2,000 simulated draws; p90 17 %), though "
            "the average is 10 %. Restated: ≤ 17 % for 200 daemons" + verdict + ", which falls toward 10 % as the fleet "
            "grows ([fleets](#fleets)).")


def reason_back(record, row):
    low = re.search(r"≤ ([\d.]+) s \(reconnect_min \+ 1 s\)", row["target"])
    back = numbers(row)
    text = ("cannot be promised: a daemon whose first attempt fell inside the restart waits again, up to 2 × "
            "reconnect_min (its backoff doubled), so the last one comes back up to 3 × reconnect_min after the server "
            "left. Restated: ≤ 3 × reconnect_min + 1 s")
    if low and back:
        bound = 3 * (float(low.group(1)) - 1) + 1
        text += f", {bound:g} s here ({'met' if value(back[0]) <= bound else '**missed**'})"
    return text + "."


ABSOLUTE = ("held to an absolute time on a machine whose speed moves by a factor of three between days, with no baseline "
            "in the same run to say how much of it is the machine's: open.")
REASONS = {
    "Latency p50 at": reason_p50,
    "Latency p99 at": reason_p99,
    "Latency ÷ bare commit": reason_ratio,
    "Raw-socket latency ÷ bare commit": reason_ratio,
    "Fleet: largest share": reason_share,
    "Fleet: server back": reason_back,
    "Gate, as nobody: `count --unread`": lambda record, row: (
        "the whole `intrapush` process, its start included, counting the unread among all the rows stored; " + ABSOLUTE),
    "Gate, as nobody: `list --grep": lambda record, row: (
        "a search reads every row, in pieces on the daemon's own thread (no full-text index: SQLite's trigram index "
        "cost 31 µs a row to build, more than storing a push); " + ABSOLUTE),
}
NAMES = {"ingest": "ingest", "generator": "the load generator", "latency": "push → ack", "idle": "idle",
         "start": "start", "fleet": "fleets", "outbox": "the outbox", "gate": "the local API",
         "neighbours": "neighbours", "guarantees": "the guarantees"}


def targets(record):
    """How many targets the run met, by section; each missed one with its reason."""
    judged = [row for row in record["rows"] if row["error"] or (row["met"] is not None and row["target"]
                                                                and not row["target"].startswith("("))]
    sections = []
    for row in judged:
        if row["section"] not in sections:
            sections.append(row["section"])
    counts = []
    for section in sections:
        mine = [row for row in judged if row["section"] == section]
        met = sum(1 for row in mine if row["met"] and not row["error"])
        counts.append(f"{NAMES.get(section, section)} {met} of {len(mine)}")
    met = sum(1 for row in judged if row["met"] and not row["error"])
    lines = [f"{met} of {len(judged)} targets met: " + ", ".join(counts) + "."]
    missed = [row for row in judged if row["error"] or not row["met"]]
    if missed:
        lines.append("\nMissed, and why:\n")
    for row in missed:
        if row["error"]:
            lines.append(f"- **{row['figure']}**: not measured: {row['error'].splitlines()[0]}")
            continue
        reason = next((explain(record, row) for start, explain in REASONS.items() if row["figure"].startswith(start)),
                      "not explained yet.")
        lines.append(f"- **{row['figure']}**, target {row['target']}: {row['values'][1]}. {reason[0].upper() + reason[1:]}")
    return "\n".join(lines)


def table(record):
    """The run's rows as Markdown, under a line naming the run."""
    lines = [run_line(record) + "; min, median and max of its runs, and whether the median meets its target:", "",
             "| section | figure | target | min | median | max | met? |", "| --- | --- | --- | --- | --- | --- | --- |"]
    for found in record["rows"]:
        if found["error"]:
            cells = ["—", "—", "ERROR: " + found["error"].splitlines()[0], "—"]
        else:
            low, middle, high = found["values"] or ("", "", "")
            verdict = {True: "yes", False: "**no**", None: "—"}[found["met"]]
            if found["figure"].startswith("Guarantees"):
                verdict = "pass" if found["met"] else "**FAIL**"
            cells = [low, f"**{middle}**" if middle else "", high, verdict]
        cells = [cell.replace("|", "\\|") for cell in cells]
        lines.append("| " + " | ".join([found["section"] or "", found["figure"].replace("|", "\\|"), found["target"], *cells]) + " |")
    return "\n".join(lines)


def rewrite(record, path, drawn, directory):
    """Each generated block of the page at `path` written again; `drawn` names the figures drawn
    from this record into `directory`, the only ones the first screen shows."""
    figures = os.path.relpath(directory, os.path.dirname(os.path.abspath(path)))
    with open(path, encoding="utf-8") as file:
        text = file.read()
    for name, body in (("summary", summary(record, drawn, figures)), ("targets", targets(record)), ("table", table(record))):
        begin, end = f"<!-- bench {name}:", f"<!-- bench {name}: end -->"
        if text.count(begin) != 2 or end not in text:
            raise SystemExit(f"bench_figures: {path} has no block `{begin} … -->` … `{end}`")
        start = text.index("\n", text.index(begin)) + 1
        text = text[:start] + body + "\n" + text[text.index(end):]
    with open(path, "w", encoding="utf-8") as file:
        file.write(text)
    print(f"bench_figures: wrote the first screen, the targets and the table of {path}")
