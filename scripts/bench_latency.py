"""The latency figures of `make bench`: push → ack at a steady rate, against what the disk allows
(a bare single-row commit, WAL and synchronous=FULL) and what the transport allows (the
devserver's bench client, which acknowledges at once and stores nothing), all timed by the
server or on the same filesystem in the same run.
"""
import os, shutil, sqlite3, statistics, subprocess, time

from bench_support import DEVSERVER, ORG, Row, log, runs, summarise, wait_for


def figure_latency(bench, server):
    options = bench.options
    method = (f"POST /push/steady: {options.steady_count:,} pushes at {options.steady_rate:,}/s, "
              f"{runs(options.steady_runs)}, fresh daemon and database per run; server time from right before the push's flush to reading "
              f"its ack")
    p50_row = Row("Latency p50 at 1,000 pushes/s", "≤ 0.5 ms", method)
    p99_row = Row("Latency p99 at 1,000 pushes/s", "≤ 2 ms", "same runs")
    bare_row = Row("Bare SQLite commit, p50 / p99", "(baseline)",
                   f"{options.steady_count:,} single-row commits (300-byte row, WAL, synchronous=FULL) at "
                   f"{options.steady_rate:,}/s from Python's sqlite3, on the same filesystem, before each latency run")
    transport_row = Row("Transport only, p50 / p99", "(baseline)",
                        "the same steady pushes to `intrapush-devserver bench-client`, which acknowledges at once and "
                        "stores nothing: the loopback and WebSocket share of the round trip")
    memory_row = Row("Daemon on tmpfs, p50 / p99", "(breakdown)",
                     "the same steady pushes to a daemon whose database is in /dev/shm: its latency without the disk, "
                     "i.e. the transport plus the daemon's own work (decoding, the store thread's round trip, SQLite's CPU)")
    ratio_row = Row("Latency ÷ bare commit, p50 / p99", "≤ 1.5× / ≤ 2.5×", "medians of the rows above")
    p50s, p99s, bare50s, bare99s, transport50s, transport99s = [], [], [], [], [], []
    memory50s, memory99s = [], []
    for run in range(options.steady_runs):
        latency = steady_latency(bench, server, None, f"t{run}-")
        transport50s.append(latency["p50"] / 1000)
        transport99s.append(latency["p99"] / 1000)
        bare = bare_commit_latencies(bench.run_directory(f"bare-{run}"), options.steady_count, options.steady_rate)
        bare50s.append(statistics.median(bare))
        bare99s.append(bare[int(len(bare) * 0.99) - 1])
        log(f"  bare commit run {run + 1}: p50 {bare50s[-1]:.3f} ms, p99 {bare99s[-1]:.3f} ms")
        latency = daemon_latency_on(bench, server, bench.run_directory(f"latency-{run}"), f"l{run}-")
        p50s.append(latency["p50"] / 1000)
        p99s.append(latency["p99"] / 1000)
        memory = daemon_latency_on(bench, server, memory_directory(bench, run), f"m{run}-")
        memory50s.append(memory["p50"] / 1000)
        memory99s.append(memory["p99"] / 1000)
        log(f"  on tmpfs run {run + 1}: p50 {memory50s[-1]:.3f} ms, p99 {memory99s[-1]:.3f} ms")
        log(f"  latency run {run + 1}: p50 {latency['p50'] / 1000:.3f} ms, p90 {latency['p90'] / 1000:.3f} ms, "
            f"p99 {latency['p99'] / 1000:.3f} ms, max {latency['max'] / 1000:.3f} ms")
    p50_row.values = summarise(p50s, lambda v: f"{v:.3f} ms")
    p99_row.values = summarise(p99s, lambda v: f"{v:.3f} ms")
    p50_row.met = statistics.median(p50s) <= 0.5
    p99_row.met = statistics.median(p99s) <= 2
    bare50, bare99 = statistics.median(bare50s), statistics.median(bare99s)
    bare_row.values = ("", f"{bare50:.3f} / {bare99:.3f} ms", "")
    ratio50, ratio99 = statistics.median(p50s) / bare50, statistics.median(p99s) / bare99
    ratio_row.values = ("", f"{ratio50:.2f}× / {ratio99:.2f}×", "")
    ratio_row.met = ratio50 <= 1.5 and ratio99 <= 2.5
    transport_row.values = ("", f"{statistics.median(transport50s):.3f} / {statistics.median(transport99s):.3f} ms", "")
    memory_row.values = ("", f"{statistics.median(memory50s):.3f} / {statistics.median(memory99s):.3f} ms", "")
    return [p50_row, p99_row, bare_row, transport_row, memory_row, ratio_row]


def memory_directory(bench, run):
    """A directory on tmpfs (/dev/shm), else beside the others (then the row shows the disk)."""
    path = os.path.join("/dev/shm", os.path.basename(bench.work) + f"-memory-{run}")
    if not os.path.isdir("/dev/shm"):
        return bench.run_directory(f"memory-{run}")
    os.makedirs(path, exist_ok=True)
    return path


def daemon_latency_on(bench, server, directory, prefix):
    """One steady run to a fresh daemon whose database is in `directory` (removed afterwards)."""
    daemon = bench.connected_daemon(server, os.path.join(directory, "notifications.sqlite3"))
    latency = steady_latency(bench, server, daemon, prefix)
    bench.stop_daemon(daemon)
    shutil.rmtree(directory)
    return latency


def steady_latency(bench, server, daemon, prefix):
    """Flush→ack latencies of one steady run, as the server timed them; without `daemon`, to the
    bench client."""
    options = bench.options
    client = None
    if daemon is None:
        with open(os.path.join(bench.work, "bench-client.log"), "ab") as log_file:
            client = bench.spawn([DEVSERVER, "bench-client", "--server", f"127.0.0.1:{server.port}", "--org", ORG,
                                  "--token-file", bench.token_file], stdout=subprocess.DEVNULL, stderr=log_file)
        wait_for(lambda: server.stats()["connections_open"] == 1, 20, "the bench client to connect")
    count = options.steady_count
    server.request("POST", f"/push/steady?count={count}&rate={options.steady_rate}&size=300&prefix={prefix}")
    stats = wait_for(lambda: (lambda s: s if s["ack_latency_us"]["count"] >= count else None)(server.stats()),
                     count / options.steady_rate + 30, f"{count:,} timed acknowledgements", interval=0.1)
    if client is not None:
        bench.stop(client)
        wait_for(lambda: server.stats()["connections_open"] == 0, 20, "the bench client to leave")
    return stats["ack_latency_us"]


def bare_commit_latencies(directory, count, rate):
    """Milliseconds per commit of one 300-byte row, WAL and synchronous=FULL, paced at `rate`/s:
    what the disk allows a durable acknowledgement at best."""
    connection = sqlite3.connect(os.path.join(directory, "bare.sqlite3"), isolation_level=None)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA synchronous=FULL")
    connection.execute("CREATE TABLE rows (id INTEGER PRIMARY KEY, payload TEXT NOT NULL)")
    payload = "x" * 300
    samples = []
    next_slot = time.perf_counter()
    for _ in range(count):
        next_slot += 1 / rate
        delay = next_slot - time.perf_counter()
        if delay > 0:
            time.sleep(delay)
        started = time.perf_counter()
        connection.execute("BEGIN")
        connection.execute("INSERT INTO rows (payload) VALUES (?)", (payload,))
        connection.execute("COMMIT")
        samples.append((time.perf_counter() - started) * 1000)
    connection.close()
    return sorted(samples)
