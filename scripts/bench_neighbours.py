# SPDX-License-Identifier: Apache-2.0
"""The neighbours figure of `make bench`: what one person on a shared host can take from the
pushes and from the other people, each measured beside the same run's quiet figure.

- Push → ack at a steady rate, quiet and beside each neighbour in turn, several rounds: 20,000
  pipelined oneway marks on one connection; a mark of all of 200,000 unread; four searches over
  the prefilled database (1,000,000 rows) kept running on four connections. Each round's p99
  and max, and the p99 ÷ the same round's quiet p99.
- Another reader's simple calls (a page of 20 on a connection of its own each time) beside the
  four searches: p50, p90 and max, and alone; a second reader's Show and page beside four
  connections of one reader counting with filters (priority, a time range, unread).
- Marks: how many of 3,000 pipelined oneway marks on fresh connections (one, and sixteen of one
  reader) are made, 10 runs each, failing the bench when this release's daemon loses one; a mark
  of all of 200,000 unread, timed, and the same reader's pages meanwhile.
- Connections: sixteen uids with no right holding 64 connections each and root holding 1,000,
  while a reader lists and a second administrator asks the status: both answered, and how long
  they took.

Users are uids that exist nowhere (setpriv); readers are members of the group `intrapush` and
administrators of `intrapush-admin`, both made for the bench when the host has none (and removed
after). As root only (setpriv, groups); without root the figure says it skipped.
"""
import json, os, re, shutil, socket, sqlite3, statistics, subprocess, threading, time

from bench_support import DAEMON, ROOT, BenchError, Row, fill, log, runs, summarise, wait_for
from bench_latency import steady_latency

HOLDER = os.path.join(ROOT, "Tests", "support", "local_api_holder.py")
FLOOD = os.path.join(ROOT, "packaging", "tests", "oneway_flood.py")
MARKS = os.path.join(ROOT, "packaging", "tests", "oneway_marks.py")
NEIGHBOUR, OTHER_READER, SECOND_ADMIN, MARKER, MARKERS_OF_ALL = 61001, 61002, 61003, 61021, 61031
NO_RIGHTS = range(62001, 62017)


def as_user(uid, groups=()):
    return ["setpriv", f"--reuid={uid}", f"--regid={uid}"] + ([f"--groups={','.join(map(str, groups))}"] if groups
                                                              else ["--clear-groups"]) + ["--"]


def call(path, method, parameters=None, timeout=30):
    """One call on a connection of its own: the reply, and how long it took in ms."""
    started = time.monotonic()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.settimeout(timeout)
        connection.connect(path)
        connection.sendall(json.dumps({"method": method, "parameters": parameters or {}}).encode() + b"\0")
        buffer = b""
        while b"\0" not in buffer:
            chunk = connection.recv(1 << 20)
            if not chunk:
                break
            buffer += chunk
    reply = json.loads(buffer.split(b"\0", 1)[0]) if b"\0" in buffer else {"error": "closed"}
    return reply, (time.monotonic() - started) * 1000


class Groups:
    """`intrapush` and `intrapush-admin`, made when missing and removed afterwards."""

    def __init__(self):
        self.made = []
        self.ids = {}
        for name in ("intrapush", "intrapush-admin"):
            if subprocess.run(["getent", "group", name], stdout=subprocess.DEVNULL).returncode != 0:
                subprocess.run(["groupadd", "--system", name], check=True)
                self.made.append(name)
            self.ids[name] = int(subprocess.run(["getent", "group", name], capture_output=True, text=True,
                                                check=True).stdout.split(":")[2])

    def remove(self):
        for name in self.made:
            subprocess.run(["groupdel", name], check=False)


def figure_neighbours(bench, server):
    if os.geteuid() != 0:
        row = Row("Neighbours", "—", "")
        row.values = ("", "skipped: as root only (setpriv, groups)", "")
        return [row]
    groups = Groups()
    try:
        return neighbour_rows(bench, server, groups)
    finally:
        groups.remove()


def neighbour_rows(bench, server, groups):
    options = bench.options
    smoke = options.smoke
    reader_groups = [groups.ids["intrapush"]]
    os.chmod(bench.work, 0o711)
    # The marks' database: its rows unread for everyone.
    directory = bench.run_directory("neighbours")
    os.chmod(directory, 0o711)
    database = os.path.join(directory, "notifications.sqlite3")
    shutil.copyfile(bench.migrated_template(server), database)
    fill(database, 2_000 if smoke else 200_000)
    connection = sqlite3.connect(database)
    with connection:
        connection.execute("DELETE FROM notification_reads")
        connection.execute("UPDATE notifications SET read_at = NULL")
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the copy below is of the file alone
    connection.close()
    rounds = 1 if smoke else 3
    # First: a daemon that loses marks fails the figure before the long runs.
    marks = mark_rows(bench, server, reader_groups, bench.copy_of(database, "neighbour-marks"), rounds)
    daemon = bench.connected_daemon(server, database, name="neighbours")
    path = database + ".sock"
    flood_count = 500 if smoke else 20_000
    p99s = {name: [] for name in ("quiet", "oneway marks", "mark of all")}
    maxes = {name: [] for name in p99s}
    try:
        for round_number in range(rounds):
            for name in p99s:
                neighbour = None
                if name == "oneway marks":
                    neighbour = bench.spawn(as_user(NEIGHBOUR, reader_groups) + ["python3", FLOOD, path, str(flood_count),
                                                                                  str(2_000 if smoke else 200_000)],
                                            stdout=subprocess.DEVNULL)
                elif name == "mark of all":
                    neighbour = bench.spawn(as_user(NEIGHBOUR + 10 + round_number, reader_groups) +
                                            ["python3", "-c", MARK_ALL, path], stdout=subprocess.DEVNULL)
                latency = steady_latency(bench, server, daemon, f"n{round_number}{name[0]}-")
                if neighbour is not None:
                    neighbour.wait(600)
                    bench.processes.remove(neighbour)
                p99s[name].append(latency["p99"] / 1000)
                maxes[name].append(latency["max"] / 1000)
                log(f"  round {round_number + 1}, {name}: p50 {latency['p50'] / 1000:.3f} ms, p99 {latency['p99'] / 1000:.3f} ms, "
                    f"max {latency['max'] / 1000:.3f} ms")
    finally:
        bench.stop_daemon(daemon)
    rows = latency_rows(p99s, maxes, flood_count)
    rows += marks
    rows += search_rows(bench, server, reader_groups, rounds)
    rows += connection_rows(bench, server, groups)
    return rows


MARK_ALL = ("import json, socket, sys\n"
            "c = socket.socket(socket.AF_UNIX); c.connect(sys.argv[1])\n"
            "c.sendall(json.dumps({'method': 'io.intrapush.Notifications.MarkRead', 'parameters': {'all': True}}).encode() + b'\\0')\n"
            "b = b''\n"
            "while b'\\0' not in b:\n"
            "    d = c.recv(65536)\n"
            "    if not d: break\n"
            "    b += d\n")


def latency_rows(p99s, maxes, flood_count):
    rows = []
    quiet = p99s["quiet"]
    for name, title in (("oneway marks", f"{flood_count:,} pipelined oneway marks"), ("mark of all", "a mark of all of 200,000")):
        ratios = [value / alone for value, alone in zip(p99s[name], quiet)]
        row = Row(f"Neighbours: push → ack beside {title}", "p99 ≤ 2× quiet, max ≤ 100 ms",
                  f"steady pushes (1,000/s) while a reader of the group intrapush does it, rounds alternating with a quiet "
                  f"run; p99 ÷ the round's quiet p99 (min / median / max), and the worst push")
        row.values = tuple(f"{ratio:.2f}× / {worst:.1f} ms" for ratio, worst in
                           zip(summarise(ratios, float), summarise(maxes[name], float)))
        row.samples = p99s[name]  # the figure's: each round's p99 in ms, beside the quiet ones
        row.met = statistics.median(ratios) <= 2 and max(maxes[name]) <= 100
        rows.append(row)
    row = Row("Neighbours: quiet push → ack p99 / max", "(baseline)", "the quiet runs of the rounds above")
    row.values = tuple(f"{p99:.3f} / {worst:.1f} ms" for p99, worst in zip(summarise(quiet, float), summarise(maxes["quiet"], float)))
    row.samples = quiet
    return [row] + rows


def mark_rows(bench, server, reader_groups, database, rounds):
    """Marks on `database` (every row unread for everyone), with no pushes flowing: pipelined
    oneway marks, then a mark of all."""
    os.chmod(os.path.dirname(database), 0o711)
    daemon = bench.connected_daemon(server, database, name="marks")
    path = database + ".sock"
    try:
        rows = oneway_mark_rows(bench, path, reader_groups)
        rows += mark_all_rows(bench, path, reader_groups, rounds)
    finally:
        bench.stop_daemon(daemon)
    return rows


def daemon_version():
    text = subprocess.run([DAEMON, "--version"], capture_output=True, text=True).stdout.strip()
    return text, tuple(int(part) for part in text.split(".")[:2] if part.isdigit())


def oneway_mark_rows(bench, path, reader_groups):
    """How many of a run's pipelined oneway marks on fresh connections are made (issue 56: some
    were lost). One reader, ids in runs of their own: oneway_marks.py counts the reader's unread
    before and after. This release's daemon fails the figure on any mark lost; an older one
    (INTRAPUSH_BENCH_DAEMON) reports it."""
    count, repeats = (300, 2) if bench.options.smoke else (3_000, 10)
    version, numbers = daemon_version()
    made = {1: [], 16: []}
    failed = {1: [], 16: []}
    first = 1
    for connections in made:
        for _ in range(repeats):
            answer = subprocess.run(as_user(MARKER, reader_groups) + ["python3", MARKS, path, "--first", str(first),
                                    "--count", str(count), "--connections", str(connections)],
                                    capture_output=True, text=True, timeout=300)
            found = re.search(r" made (-?\d+) lost ", answer.stdout)
            first += count
            if answer.returncode != 0 or not found:
                failure = f"oneway_marks.py exited with {answer.returncode}: {answer.stderr.strip()[-300:]}"
                if numbers >= (0, 7):
                    raise BenchError(failure)
                # An older daemon (INTRAPUSH_BENCH_DAEMON): a run it failed is a figure too.
                log(f"  {failure}")
                failed[connections].append(answer.stderr.strip().splitlines()[-1][-160:] if answer.stderr.strip() else failure)
                continue
            log(f"  {answer.stdout.strip()}")
            made[connections].append(int(found.group(1)))
    rows = []
    for connections, figures in made.items():
        where = "one fresh connection" if connections == 1 else f"{connections} fresh connections of one reader at once"
        row = Row(f"Neighbours: oneway marks made, {count:,} on {where}", f"{count:,} of {count:,} in every run",
                  f"{runs(repeats)}, each on ids of its own, unread: {count:,} MarkRead calls with oneway, pipelined as "
                  f"fast as the socket takes them, then one awaited on each connection (oneway_marks.py); marks made, "
                  f"from the reader's unread count before and after")
        row.values = summarise(figures, lambda v: f"{v:,}") if figures else ("", "no run answered", "")
        row.samples = figures
        if failed[connections]:
            row.method += (f"; {len(failed[connections])} of {repeats} runs failed (their last, awaited mark refused): "
                           f"{failed[connections][0]}")
        row.met = bool(figures) and not failed[connections] and min(figures) == count
        rows.append(row)
    if numbers >= (0, 7) and not all(row.met for row in rows):
        raise BenchError(f"intrapushd {version} lost pipelined oneway marks: made of {count:,} in each run, one connection "
                         f"{made[1]}, 16 connections {made[16]}")
    return rows


def mark_all_rows(bench, path, reader_groups, repeats):
    """A mark of all of a reader's unread, timed from the call to its answer, while the same reader
    asks for a page of 20 over and over, each on a connection of its own; a new reader each run,
    so that every row is unread for them."""
    seconds, pages, failures, asked = [], [], [], 0
    unread = None
    for run in range(repeats):
        person = MARKERS_OF_ALL + run
        marker = bench.spawn(as_user(person, reader_groups) + ["python3", "-c", TIMED_MARK_ALL, path],
                             stdout=subprocess.PIPE, text=True)
        stop, sent, times, failed = threading.Event(), threading.Event(), [[]], []
        pager = threading.Thread(target=call_loop, args=(path, person, reader_groups, [LIST_20], stop, times, failed, sent))
        pager.start()
        try:
            line = marker.stdout.readline().strip()
            sent.set()
            answer = marker.stdout.readline().split() if line == "sent" else [line]
        finally:
            sent.set()
            stop.set()
            pager.join()
            bench.stop(marker)
        if len(answer) != 2:
            raise BenchError(f"the mark of all: {' '.join(answer) or 'no answer'}")
        seconds.append(float(answer[0]) / 1000)
        unread = int(answer[1])
        pages += times[0]
        failures += failed
        asked += len(times[0]) + len(failed)
        log(f"  mark of all of {unread:,}, run {run + 1}: {seconds[-1]:.2f} s; {len(times[0])} pages meanwhile")
    row = Row(f"Neighbours: mark of all, {unread:,} unread", "≤ 3 s",
              f"MarkRead with all of a reader to whom every row is unread, from the call to its answer, no pushes flowing; "
              f"{runs(repeats)}, a new reader each")
    row.values = summarise(seconds, lambda v: f"{v:.2f} s")
    row.samples = seconds
    row.met = max(seconds) <= 3
    pages.sort()
    page_row = Row("Neighbours: the same reader's pages during the mark of all, p90; answered", "all answered, p90 ≤ 25 ms",
                   "List of 20 as the reader who marks, each on a connection of its own, one after another from the mark's "
                   "call to its answer" + (f"; not answered: {'; '.join(sorted(set(failures)))}" if failures else ""))
    page_row.values = ("", f"{percentile(pages, 0.9):.1f} ms; {len(pages):,} of {asked:,} answered", "")
    page_row.met = bool(pages) and not failures and percentile(pages, 0.9) <= 25
    return [row, page_row]


TIMED_MARK_ALL = ("import json, socket, sys, time\n"
                  "c = socket.socket(socket.AF_UNIX); c.connect(sys.argv[1]); c.settimeout(300)\n"
                  "t = time.monotonic()\n"
                  "c.sendall(json.dumps({'method': 'io.intrapush.Notifications.MarkRead', 'parameters': {'all': True}}).encode() + b'\\0')\n"
                  "print('sent', flush=True)\n"
                  "b = b''\n"
                  "while b'\\0' not in b:\n"
                  "    d = c.recv(65536)\n"
                  "    if not d: break\n"
                  "    b += d\n"
                  "r = json.loads(b.split(b'\\0')[0]) if b'\\0' in b else {'error': 'closed'}\n"
                  "print(f\"{(time.monotonic() - t) * 1000:.1f} {r['parameters']['marked']}\" if 'error' not in r else r['error'])\n")
LIST_20 = {"method": "io.intrapush.Notifications.List", "parameters": {"limit": 20}}


def call_loop(path, uid, groups, calls, stop, times, failures, start=None):
    """`calls` in turn as `uid`, one after another (from `start` on, when given) until `stop`, each
    on a connection of its own: each one's ms in times[its index], or what came instead in
    `failures`. In a thread of this process: setpriv would time a program's start."""
    caller = subprocess.Popen(as_user(uid, groups) + ["python3", "-c", CALL_LOOP, path, json.dumps(calls)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        if start is not None:
            start.wait()
        while not stop.is_set():
            caller.stdin.write("\n")
            caller.stdin.flush()
            index, _, result = caller.stdout.readline().strip().partition(" ")
            if not index:
                failures.append("the caller exited")
                return
            try:
                times[int(index)].append(float(result))
            except ValueError:
                failures.append(result)
            time.sleep(0.02)
    finally:
        caller.stdin.close()
        caller.wait(40)


CALL_LOOP = ("import json, socket, sys, time\n"
             "calls = [json.dumps(c).encode() + b'\\0' for c in json.loads(sys.argv[2])]\n"
             "n = 0\n"
             "while sys.stdin.readline():\n"
             "    t = time.monotonic(); b = b''\n"
             "    try:\n"
             "        c = socket.socket(socket.AF_UNIX); c.connect(sys.argv[1]); c.settimeout(30)\n"
             "        c.sendall(calls[n % len(calls)])\n"
             "        while b'\\0' not in b:\n"
             "            d = c.recv(1 << 20)\n"
             "            if not d: break\n"
             "            b += d\n"
             "        c.close()\n"
             "    except OSError as e: b = str(e).encode()\n"
             "    r = json.loads(b.split(b'\\0')[0]) if b'\\0' in b else {'error': b.decode() or 'closed'}\n"
             "    print(n % len(calls), f'{(time.monotonic() - t) * 1000:.3f}' if 'error' not in r else r['error'], flush=True)\n"
             "    n += 1\n")


def search_rows(bench, server, reader_groups, rounds):
    """Push → ack and another reader's pages beside four searches over the prefilled database."""
    database = bench.copy_of(bench.prefilled_template, "neighbour-searches")
    os.chmod(os.path.dirname(database), 0o711)
    daemon = bench.connected_daemon(server, database, name="searches")
    path = database + ".sock"
    p99s, maxes, pages, alone_pages = {"quiet": [], "searches": []}, {"quiet": [], "searches": []}, [], []
    try:
        for round_number in range(rounds):
            for name in ("quiet", "searches"):
                stop = threading.Event()
                searchers = []
                if name == "searches":
                    for n in range(4):
                        searchers.append(bench.spawn(as_user(NEIGHBOUR, reader_groups) + ["python3", "-c", COUNT_LOOP, path,
                                                                                           json.dumps({"grep": "no such words"})],
                                                     stdin=subprocess.PIPE, stdout=subprocess.DEVNULL))
                    time.sleep(0.5)  # the four searches under way before the pages are timed
                times = alone_pages if name == "quiet" else pages
                pager = threading.Thread(target=page_loop, args=(path, reader_groups, stop, times))
                pager.start()
                latency = steady_latency(bench, server, daemon, f"s{round_number}{name[0]}-")
                stop.set()
                pager.join()
                for searcher in searchers:
                    bench.stop(searcher)
                p99s[name].append(latency["p99"] / 1000)
                maxes[name].append(latency["max"] / 1000)
                log(f"  round {round_number + 1}, {name}: push p99 {latency['p99'] / 1000:.3f} ms, max {latency['max'] / 1000:.1f} ms")
        beside_counts = filtered_count_rows(bench, path, reader_groups)
    finally:
        bench.stop_daemon(daemon)
    ratios = [value / alone for value, alone in zip(p99s["searches"], p99s["quiet"])]
    push_row = Row("Neighbours: push → ack beside four searches over 1,000,000 rows", "p99 ≤ 2× quiet, max ≤ 100 ms",
                   "four connections of one reader each asking Count with a search over and over, during a steady run; "
                   "p99 ÷ the round's quiet p99, and the worst push")
    push_row.values = tuple(f"{ratio:.2f}× / {worst:.1f} ms" for ratio, worst in
                            zip(summarise(ratios, float), summarise(maxes["searches"], float)))
    push_row.met = statistics.median(ratios) <= 2 and max(maxes["searches"]) <= 100
    push_row.samples = p99s["searches"]
    quiet_row = Row("Neighbours: quiet push → ack p99 / max, 1,000,000 rows", "(baseline)", "the quiet runs of the rounds above")
    quiet_row.values = tuple(f"{p99:.3f} / {worst:.1f} ms" for p99, worst in
                             zip(summarise(p99s["quiet"], float), summarise(maxes["quiet"], float)))
    quiet_row.samples = p99s["quiet"]
    pages.sort()
    alone_pages.sort()
    page_row = Row("Neighbours: another reader's page of 20 beside the searches, p50 / p90 / max", "p90 ≤ 25 ms",
                   f"{len(pages):,} List calls of 20, each on a connection of its own (alone: {len(alone_pages):,}, "
                   f"p50 {percentile(alone_pages, 0.5):.1f} / p90 {percentile(alone_pages, 0.9):.1f} ms)")
    page_row.values = ("", f"{percentile(pages, 0.5):.1f} / {percentile(pages, 0.9):.1f} / {pages[-1]:.1f} ms", "")
    page_row.met = percentile(pages, 0.9) <= 25
    return [quiet_row, push_row, page_row] + beside_counts


def filtered_count_rows(bench, path, reader_groups):
    """Another reader's Show of one id and page of 20, alone and then while four connections of
    one reader each ask Count with a filter over and over (at least a priority; a time range;
    unread; all three): a filter's search must not hold up a point read or a page. No pushes."""
    prefill = bench.options.prefill
    durations = (("alone", 1), ("beside", 2)) if bench.options.smoke else (("alone", 5), ("beside", 10))
    with sqlite3.connect(bench.prefilled_template) as connection:
        first, last = connection.execute("SELECT min(received_at), max(received_at) FROM notifications").fetchone()
    since, until = first + (last - first) // 4, last - (last - first) // 4
    filters = [{"priority": 4}, {"since": since, "until": until}, {"unread": True},
               {"priority": 2, "since": since, "until": until, "unread": True}]
    calls = [{"method": "io.intrapush.Notifications.Show", "parameters": {"id": prefill // 2}}, LIST_20]
    figures, failures = {}, []
    for name, seconds in durations:
        counters = []
        if name == "beside":
            for search in filters:
                counters.append(bench.spawn(as_user(NEIGHBOUR, reader_groups) + ["python3", "-c", COUNT_LOOP, path,
                                                                                 json.dumps(search)],
                                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True))
            time.sleep(0.5)  # the four Counts under way before the calls are timed
        stop, times = threading.Event(), [[], []]
        caller = threading.Thread(target=call_loop, args=(path, OTHER_READER, reader_groups, calls, stop, times, failures))
        caller.start()
        time.sleep(seconds)
        stop.set()
        caller.join()
        ended = [counter.stderr.read().strip() or f"exit {counter.returncode}" for counter in counters
                 if counter.poll() is not None]
        for counter in counters:
            bench.stop(counter)
            counter.stderr.close()
        if ended:
            raise BenchError(f"a filtered Count ended: {ended[0]}")
        figures[name] = [sorted(values) for values in times]
        log(f"  Show and page, {name}: {len(times[0])} Show, {len(times[1])} List, {len(failures)} failed so far")
    rows = []
    for index, what in ((0, "Show of one id"), (1, "page of 20")):
        alone, beside = figures["alone"][index], figures["beside"][index]
        row = Row(f"Neighbours: another reader's {what} beside four filtered Counts, p50 / p90 / max", "p90 ≤ 25 ms",
                  f"{len(beside):,} calls, each on a connection of its own, alternating with the "
                  f"{'page' if index == 0 else 'Show'}, while four connections of one reader each ask Count over and over "
                  f"with a filter (at least priority 4; a time range of half the rows; unread; all three) over "
                  f"{prefill:,} rows, no pushes (alone: {len(alone):,}, p50 {percentile(alone, 0.5):.1f} / "
                  f"p90 {percentile(alone, 0.9):.1f} ms)" + (f"; failed: {'; '.join(sorted(set(failures)))}" if failures else ""))
        row.values = ("", f"{percentile(beside, 0.5):.1f} / {percentile(beside, 0.9):.1f} / "
                          f"{beside[-1] if beside else 0:.1f} ms", "")
        row.met = bool(beside) and not failures and percentile(beside, 0.9) <= 25
        rows.append(row)
    return rows


# Count with the filter argv[2], over and over on one connection; an error answer ends it, named.
COUNT_LOOP = ("import json, socket, sys\n"
              "c = socket.socket(socket.AF_UNIX); c.connect(sys.argv[1])\n"
              "call = json.dumps({'method': 'io.intrapush.Notifications.Count', 'parameters': {'filter': json.loads(sys.argv[2])}}).encode() + b'\\0'\n"
              "while True:\n"
              "    c.sendall(call)\n"
              "    b = b''\n"
              "    while b'\\0' not in b:\n"
              "        d = c.recv(65536)\n"
              "        if not d: sys.exit(0)\n"
              "        b += d\n"
              "    r = json.loads(b.split(b'\\0')[0])\n"
              "    if 'error' in r: sys.exit(f\"{r['error']} {json.dumps(r.get('parameters'))}\")\n")


def page_loop(path, reader_groups, stop, times):
    """Another reader's pages, one connection each, timed, until `stop` (as that reader, in a thread
    of this process: setpriv would time a program's start)."""
    code = ("import json, socket, sys, time\n"
            "while sys.stdin.readline():\n"
            "    t = time.monotonic(); c = socket.socket(socket.AF_UNIX); c.connect(sys.argv[1])\n"
            "    c.sendall(json.dumps({'method': 'io.intrapush.Notifications.List', 'parameters': {'limit': 20}}).encode() + b'\\0')\n"
            "    b = b''\n"
            "    while b'\\0' not in b:\n"
            "        d = c.recv(1 << 20)\n"
            "        if not d: break\n"
            "        b += d\n"
            "    c.close(); print(f'{(time.monotonic() - t) * 1000:.3f}', flush=True)\n")
    reader = subprocess.Popen(as_user(OTHER_READER, reader_groups) + ["python3", "-c", code, path], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        while not stop.is_set():
            reader.stdin.write("\n")
            reader.stdin.flush()
            times.append(float(reader.stdout.readline()))
            time.sleep(0.02)
    finally:
        reader.stdin.close()
        reader.wait(10)


def connection_rows(bench, server, groups):
    """Sixteen uids with no right holding 64 connections each, root 1,000; a reader's and a second
    administrator's calls meanwhile."""
    directory = bench.run_directory("neighbour-connections")
    os.chmod(directory, 0o711)
    database = os.path.join(directory, "notifications.sqlite3")
    shutil.copyfile(bench.migrated_template(server), database)
    daemon = bench.connected_daemon(server, database, name="connections")
    path = database + ".sock"
    holders = []
    try:
        for uid in NO_RIGHTS:
            holders.append(bench.spawn(as_user(uid) + ["python3", HOLDER, path, "64", "io.intrapush.Daemon.WhoAmI"],
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True))
        holders.append(bench.spawn(["python3", HOLDER, path, "1000", "io.intrapush.Daemon.WhoAmI"],
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True))
        for holder in holders:
            holder.stdout.readline()  # "answer …": its connections are open
        reader = subprocess.run(as_user(OTHER_READER, [groups.ids["intrapush"]]) + ["python3", "-c", TIMED_CALL, path,
                                "io.intrapush.Notifications.List"], capture_output=True, text=True, timeout=60)
        admin = subprocess.run(as_user(SECOND_ADMIN, [groups.ids["intrapush-admin"]]) + ["python3", "-c", TIMED_CALL, path,
                               "io.intrapush.Daemon.Status"], capture_output=True, text=True, timeout=60)
    finally:
        for holder in holders:
            bench.stop(holder)
        bench.stop_daemon(daemon)
    row = Row("Neighbours: 16 uids with no right × 64 connections, root × 1,000: a reader and a second administrator",
              "both answered", "each call on a connection of its own, as a member of intrapush and of intrapush-admin")
    row.values = ("", f"reader: {reader.stdout.strip() or reader.stderr.strip()[-80:]}; "
                      f"administrator: {admin.stdout.strip() or admin.stderr.strip()[-80:]}", "")
    row.met = reader.stdout.startswith("ok") and admin.stdout.startswith("ok")
    return [row]


TIMED_CALL = ("import json, socket, sys, time\n"
              "t = time.monotonic(); c = socket.socket(socket.AF_UNIX); c.settimeout(30); c.connect(sys.argv[1])\n"
              "c.sendall(json.dumps({'method': sys.argv[2], 'parameters': {}}).encode() + b'\\0')\n"
              "b = b''\n"
              "while b'\\0' not in b:\n"
              "    d = c.recv(1 << 20)\n"
              "    if not d: break\n"
              "    b += d\n"
              "r = json.loads(b.split(b'\\0')[0]) if b'\\0' in b else {'error': 'closed'}\n"
              "print(('ok' if 'error' not in r else r['error']) + f' in {(time.monotonic() - t) * 1000:.1f} ms')\n")


def percentile(ordered, fraction):
    return ordered[max(0, int(len(ordered) * fraction) - 1)] if ordered else 0.0
