# SPDX-License-Identifier: Apache-2.0
"""The local API's figures of `make bench`, on the prefilled database (1,000,000 rows) with the
daemon running and `readers = "everyone"`: the CLI as a user who is no administrator (nobody,
through the gate) for `list`, `count --unread` and `list --grep`, whole process; a subscriber's
push → delivery; and push → ack p99 at a steady rate while that user runs `list --grep` in a loop,
and while one connection of theirs asks the same search over and over (the gate's own share,
without a program's start each time), against the same figure with no reader, rounds alternating;
and what one user's 1,000 idle connections cost the daemon, and another user's `count`.
"""
import json, os, statistics, subprocess, threading, time, urllib.request

from bench_support import ORG, ROOT, BenchError, Row, log, proc_status, summarise, wait_for

CLI = os.path.join(ROOT, ".build", "release", "intrapush")
NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
# Another unprivileged user, the one who holds many connections.
SOMEONE_ELSE = ["setpriv", "--reuid=65533", "--regid=65533", "--clear-groups"]
# The connections one reader may hold (ConnectionPlaces, docs/operating.md "Limits").
PERSONS_SHARE = 64
HOLDER = os.path.join(ROOT, "Tests", "support", "local_api_holder.py")


def figure_gate(bench, server):
    from bench_latency import steady_latency
    directory = bench.run_directory("gate")
    for path in (bench.work, directory):
        os.chmod(path, 0o711)  # nobody reaches the socket, not the files
    database = bench.copy_of(bench.prefilled_template, "gate")
    daemon = bench.connected_daemon(server, database, name="gate", extra='readers = "everyone"\n')
    rows = []
    env = dict(os.environ, INTRAPUSH_DATABASE=database)
    runs = 3 if bench.options.smoke else 11
    for name, arguments, target in (("list (20)", ["list"], 50), ("count --unread", ["count", "--unread"], 50),
                                    ("list --grep", ["list", "--grep", "Zebrafish"], 400)):
        times = []
        for _ in range(runs + 1):
            started = time.monotonic()
            subprocess.run(NOBODY + [CLI] + arguments, env=env, stdout=subprocess.DEVNULL, check=True)
            times.append((time.monotonic() - started) * 1000)
        times = times[1:]  # the first warms the caches
        row = Row(f"Gate, as nobody: `{' '.join(arguments)}`", f"≤ {target} ms",
                  f"{runs} runs, whole process, through the daemon's local API, {bench.options.prefill:,} rows")
        row.values = summarise(times, lambda v: f"{v:.1f} ms")
        row.met = statistics.median(times) <= target
        rows.append(row)
        log(f"  {name}: median {statistics.median(times):.1f} ms")

    try:
        rows += idle_connection_rows(bench, daemon, database, env)
    except (BenchError, subprocess.CalledProcessError) as error:
        # A daemon before per-person limits (INTRAPUSH_BENCH_DAEMON) fails here; the rest goes on.
        log(f"  1,000 idle connections FAILED: {error}")
        for title in ("Gate: 1,000 idle connections of one user, the daemon's RSS", "Gate: nobody's `count` p99 beside them"):
            row = Row(title, "—", "")
            row.error = str(error)
            rows.append(row)

    lags = subscriber_lags(bench, server, database, 20 if bench.options.smoke else 100)
    row = Row("Gate: push → subscriber, p50", "≤ 5 ms",
              f"{len(lags)} pushes 20 ms apart, from the devserver's POST /push to the reply on a Subscribe call "
              f"as nobody: an upper bound of commit → delivery")
    row.values = summarise([statistics.median(lags)], lambda v: f"{v:.2f} ms")
    row.met = statistics.median(lags) <= 5
    rows.append(row)

    # Alone and beside each kind of reader in turn, several rounds: one steady run's p99 moves
    # with whatever else the host does, so each figure is the median of its rounds'.
    readers = {"alone": None,
               "cli": lambda: subprocess.run(NOBODY + [CLI, "list", "--grep", "Zebrafish"], env=env,
                                             stdout=subprocess.DEVNULL),
               "socket": None}
    p99s = {name: [] for name in readers}
    p50s = {name: [] for name in readers}
    searches = {name: 0 for name in readers}
    for round_number in range(1 if bench.options.smoke else 3):
        for name in readers:
            stop = threading.Event()
            searcher = None
            if name == "cli":
                def search_loop():
                    while not stop.is_set():
                        readers["cli"]()
                        searches["cli"] += 1
                searcher = threading.Thread(target=search_loop)
                searcher.start()
            elif name == "socket":
                searcher = subprocess.Popen(NOBODY + ["/usr/bin/python3", "-c", SEARCHER, database + ".sock"],
                                            stdout=subprocess.PIPE, text=True)
                assert searcher.stdout.readline().strip() == "searching"
            try:
                figures = steady_latency(bench, server, daemon, f"g{name[0]}{round_number}-")
            finally:
                stop.set()
                if isinstance(searcher, subprocess.Popen):
                    searcher.terminate()
                    searches["socket"] += int(searcher.communicate()[0].split()[-1] or 0)
                elif searcher:
                    searcher.join()
            p99s[name].append(figures["p99"] / 1000)
            p50s[name].append(figures["p50"] / 1000)
    bench.stop_daemon(daemon)
    rounds = len(p99s["alone"])
    baseline = statistics.median(p99s["alone"])
    plain = Row("Push → ack p99, no reader", "(baseline)",
                f"the steady run of the latency figure, on this database; {rounds} rounds, alternating with the two below "
                f"(p50 median {statistics.median(p50s['alone']):.3f} ms)")
    plain.values = summarise(p99s["alone"], lambda v: f"{v:.3f} ms")
    plain.samples = p99s["alone"]
    rows += [plain]
    for name, title, method in (
            ("cli", "Push → ack p99 beside a reader's `list --grep` loop", "nobody runs `intrapush list --grep` in a loop"),
            ("socket", "Push → ack p99 beside a --grep loop on one connection",
             "nobody's one connection asks List with a grep again as each answer comes: the gate's own share, no "
             "program started")):
        row = Row(title, "≤ 1.5× baseline" if name == "cli" else "(≤ 1.5× baseline)",
                  f"the same, while {method} ({searches[name]} searches in {rounds} rounds; ratio of medians, "
                  f"p50 median {statistics.median(p50s[name]):.3f} ms)")
        ratio = statistics.median(p99s[name]) / baseline
        low, middle, high = summarise(p99s[name], lambda v: f"{v:.3f} ms")
        row.values = (low, f"{middle} ({ratio:.2f}×)", high)
        row.samples = p99s[name]
        row.met = ratio <= 1.5
        rows.append(row)
        log(f"  push → ack p99 beside the {name} reader: median {statistics.median(p99s[name]):.3f} ms, "
            f"{ratio:.2f}× the {baseline:.3f} ms alone")
    return rows


def count_times(env, runs):
    """Milliseconds of nobody's `intrapush count`, whole process, `runs` times."""
    times = []
    for _ in range(runs):
        started = time.monotonic()
        subprocess.run(NOBODY + [CLI, "count"], env=env, stdout=subprocess.DEVNULL, check=True)
        times.append((time.monotonic() - started) * 1000)
    return times


def p99(samples):
    return sorted(samples)[min(len(samples) - 1, int(len(samples) * 0.99))]


def idle_connection_rows(bench, daemon, database, env):
    """Another user opens 1,000 connections and leaves them idle: what that costs the daemon
    (RSS above what it had before, the descriptors), and nobody's `count` p99 beside it against
    the same alone, rounds alternating."""
    rounds, per_round = (1, 10) if bench.options.smoke else (3, 40)
    alone, beside, grown, descriptors, kept = [], [], [], [], []
    for _ in range(rounds):
        alone += count_times(env, per_round)
        before = int(proc_status(daemon.pid)["VmRSS"].split()[0])
        holder = subprocess.Popen(SOMEONE_ELSE + ["/usr/bin/python3", HOLDER, database + ".sock", "1000"],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        try:
            answer = holder.stdout.readline().split()[-1]
            if answer != "io.intrapush.Notifications.Busy":
                log(f"  1,000 idle connections: the next one was answered {answer}, not io.intrapush.Notifications.Busy")

            def settled():
                holder.stdin.write("count\n")
                holder.stdin.flush()
                held = int(holder.stdout.readline().split()[-1])
                return held if held <= PERSONS_SHARE else None
            kept.append(wait_for(settled, 30, f"the daemon to keep no more than {PERSONS_SHARE} of one user's connections"))
            grown.append((int(proc_status(daemon.pid)["VmRSS"].split()[0]) - before) / 1024)
            descriptors.append(len(os.listdir(f"/proc/{daemon.pid}/fd")))
            beside += count_times(env, per_round)
        finally:
            holder.stdin.close()
            holder.wait(timeout=10)
    memory = Row("Gate: 1,000 idle connections of one user, the daemon's RSS", "≤ 32 MiB",
                 f"another user opens 1,000 connections and sends nothing; RSS once the daemon has closed all but "
                 f"its share ({max(kept)} kept), above what it was before; {max(descriptors)} descriptors at most; "
                 f"{rounds} rounds")
    memory.values = summarise(grown, lambda v: f"{v:+.1f} MiB")
    memory.met = max(grown) <= 32
    ratio = p99(beside) / p99(alone)
    count = Row("Gate: nobody's `count` p99 beside them", "≤ 1.5× alone",
                f"{len(beside)} runs, whole process, while the 1,000 are held, against {len(alone)} alone "
                f"(p99 {p99(alone):.1f} ms), rounds alternating")
    count.values = (f"{min(beside):.1f} ms", f"{p99(beside):.1f} ms p99 ({ratio:.2f}×)", f"{max(beside):.1f} ms")
    count.met = ratio <= 1.5
    log(f"  1,000 idle connections: RSS {max(grown):+.1f} MiB, count p99 {p99(beside):.1f} ms beside, "
        f"{p99(alone):.1f} ms alone ({ratio:.2f}×)")
    return [memory, count]


def subscriber_lags(bench, server, database, count):
    """Milliseconds from the push's POST to the subscriber's reply, one push at a time."""
    subscriber = subprocess.Popen(
        NOBODY + ["/usr/bin/python3", "-c", SUBSCRIBER, database + ".sock"], stdout=subprocess.PIPE, text=True)
    assert subscriber.stdout.readline().strip() == "subscribed"
    lags = []
    for n in range(count):
        started = time.monotonic()
        body = json.dumps({"id": f"gs-{n}", "title": "subscribed"}).encode()
        urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{server.port}/push?org={ORG}", data=body,
                                                      method="POST"), timeout=10).read()
        subscriber.stdout.readline()
        lags.append((time.monotonic() - started) * 1000)
        time.sleep(0.02)
    subscriber.kill()
    subscriber.wait()
    return lags


# A Subscribe call on the local API, as another user: a line per notification it delivers.
SUBSCRIBER = r"""
import json, socket, sys
connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
connection.connect(sys.argv[1])
connection.sendall(json.dumps({"method": "io.intrapush.Daemon.WhoAmI"}).encode() + b"\0")
buffer = b""
while b"\0" not in buffer:
    buffer += connection.recv(65536)
buffer = buffer.split(b"\0", 1)[1]
connection.sendall(json.dumps({"method": "io.intrapush.Notifications.Subscribe", "more": True}).encode() + b"\0")
print("subscribed", flush=True)
while True:
    while b"\0" not in buffer:
        chunk = connection.recv(65536)
        if not chunk:
            sys.exit(0)
        buffer += chunk
    message, buffer = buffer.split(b"\0", 1)
    print(json.loads(message)["parameters"]["notification"]["id"], flush=True)
"""


# A List with a grep, over and over on one connection as nobody: prints "searching", and on
# SIGTERM how many answers it had.
SEARCHER = r"""
import json, signal, socket, sys
answers = 0
def finish(*_):
    print(answers, flush=True)
    sys.exit(0)
signal.signal(signal.SIGTERM, finish)
connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
connection.connect(sys.argv[1])
call = json.dumps({"method": "io.intrapush.Notifications.List",
                   "parameters": {"filter": {"grep": "Zebrafish"}, "limit": 20}}).encode() + b"\0"
print("searching", flush=True)
while True:
    connection.sendall(call)
    buffer = b""
    while not buffer.endswith(b"\0"):
        buffer += connection.recv(65536)
    answers += 1
"""
