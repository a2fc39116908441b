"""The local API's figures of `make bench`, on the prefilled database (1,000,000 rows) with the
daemon running and `readers = "everyone"`: the CLI as a user who is no administrator (nobody,
through the gate) for `list`, `count --unread` and `list --grep`, whole process; a subscriber's
push → delivery; and push → ack at a steady rate while that user runs `list --grep` in a loop,
against the same figure without it, in the same run.
"""
import json, os, statistics, subprocess, threading, time, urllib.request

from bench_support import ORG, ROOT, Row, log, summarise

CLI = os.path.join(ROOT, ".build", "release", "intrapush")
NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


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

    lags = subscriber_lags(bench, server, database, 20 if bench.options.smoke else 100)
    row = Row("Gate: push → subscriber, p50", "≤ 5 ms",
              f"{len(lags)} pushes 20 ms apart, from the devserver's POST /push to the reply on a Subscribe call "
              f"as nobody: an upper bound of commit → delivery")
    row.values = summarise([statistics.median(lags)], lambda v: f"{v:.2f} ms")
    row.met = statistics.median(lags) <= 5
    rows.append(row)

    alone = steady_latency(bench, server, daemon, "ga-")
    stop = threading.Event()
    searches = [0]

    def search_loop():
        while not stop.is_set():
            subprocess.run(NOBODY + [CLI, "list", "--grep", "Zebrafish"], env=env, stdout=subprocess.DEVNULL)
            searches[0] += 1

    searcher = threading.Thread(target=search_loop)
    searcher.start()
    try:
        loaded = steady_latency(bench, server, daemon, "gl-")
    finally:
        stop.set()
        searcher.join()
    bench.stop_daemon(daemon)
    plain = Row("Push → ack, p50 / p99, no reader", "(baseline)", "the steady run of the latency figure, on this database")
    plain.values = ("", f"{alone['p50'] / 1000:.3f} / {alone['p99'] / 1000:.3f} ms", "")
    busy = Row("Push → ack, p50 / p99, a reader's --grep loop", "p99 ≤ 1.5× baseline",
               f"the same, while nobody runs `list --grep` through the gate in a loop ({searches[0]} searches)")
    ratio = loaded["p99"] / alone["p99"]
    busy.values = ("", f"{loaded['p50'] / 1000:.3f} / {loaded['p99'] / 1000:.3f} ms ({ratio:.2f}× p99)", "")
    busy.met = ratio <= 1.5
    log(f"  push → ack p99: {alone['p99'] / 1000:.3f} ms alone, {loaded['p99'] / 1000:.3f} ms beside {searches[0]} searches")
    return rows + [plain, busy]


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
