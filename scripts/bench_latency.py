# SPDX-License-Identifier: Apache-2.0
"""The latency figures of `make bench`: push → ack at a steady rate, against what the disk allows
(a bare single-row commit of the same row, WAL and synchronous=FULL) and what the transport
allows (the devserver's bench client, which acknowledges at once and stores nothing), all timed
by the server or on the same filesystem in the same run; and the same pushes from a second,
unrelated server (Python on a raw socket).
"""
import os, re, shutil, statistics, subprocess, urllib.request

from bench_baseline import RawSteadyServer, bare_commit_latencies
from bench_support import DEVSERVER, ORG, Row, log, runs, summarise, wait_for
from intrapush_test_support import free_port


def figure_latency(bench, server):
    options = bench.options
    method = (f"POST /push/steady: {options.steady_count:,} pushes at {options.steady_rate:,}/s, "
              f"{runs(options.steady_runs)}, fresh daemon and database per run; server time from right before the push's flush to reading "
              f"its ack")
    p50_row = Row("Latency p50 at 1,000 pushes/s", "≤ 0.5 ms", method)
    p99_row = Row("Latency p99 at 1,000 pushes/s", "≤ 2 ms", "same runs")
    bare_row = Row("Bare SQLite commit, p50 / p99", "(baseline)",
                   f"{options.steady_count:,} single-row commits of the same pushes' rows (the daemon's statement, into a copy "
                   f"of its migrated database: WAL, synchronous=FULL) at {options.steady_rate:,}/s from Python's sqlite3, "
                   f"on the same filesystem, in each run")
    transport_row = Row("Transport only, p50 / p99", "(breakdown)",
                        "the same steady pushes to `intrapush-devserver bench-client`, which acknowledges at once and "
                        "stores nothing: the loopback and WebSocket share of the round trip")
    memory_row = Row("Daemon on tmpfs, p50 / p99", "(breakdown)",
                     "the same steady pushes to a daemon whose database is in /dev/shm: its latency without the disk, "
                     "i.e. the transport plus the daemon's own work (decoding, SQLite's CPU)")
    ratio_row = Row("Latency ÷ bare commit, p50 / p99", "≤ 1.3× / ≤ 2.0×",
                    "each run's daemon p50 and p99 ÷ the same run's bare commit p50 and p99; min, median, max")
    raw_row = Row("Latency from a raw-socket server, p50 / p99", "(second peer)",
                  "the same steady pushes from a WebSocket server in Python on a raw socket (scripts/bench_baseline.py), "
                  "timed the same way, to a fresh daemon in each run")
    raw_ratio_row = Row("Raw-socket latency ÷ bare commit, p50 / p99", "≤ 1.3× / ≤ 2.0×", "the same, per run")
    slot_row = Row("Bare commit from its slot, p50 / p99", "(breakdown)",
                   "the same bare commits, each with the time the commit before it ran past its slot added: "
                   "the wait that a push arriving while the daemon commits has too")
    slot_ratio_row = Row("Latency ÷ bare commit from its slot, p50 / p99", "(breakdown)",
                         "each run's devserver latency p50 and p99 ÷ the same run's bare commit from its slot; min, median, max")
    stage_row = Row("Where a push's time goes, mean µs", "(breakdown)",
                    "the raw-socket runs, their daemon with metrics on: intrapush_push_stage_seconds' means (from the frame "
                    "to the commit's start, the commit with its fsync, on to the acknowledgement), and the rest of the server's mean "
                    "(the loopback both ways, the server's own reading and writing); medians of the runs")
    template = bench.migrated_template(server)
    samples = {name: ([], []) for name in ("daemon", "bare", "slot", "transport", "memory", "raw")}
    stages = []
    every = {"bare": [], "raw": []}  # each push's, in ms, for the figure of their distributions

    def record(name, p50, p99):
        samples[name][0].append(p50)
        samples[name][1].append(p99)
        log(f"  {name} run {len(samples[name][0])}: p50 {p50:.3f} ms, p99 {p99:.3f} ms")

    for run in range(options.steady_runs):
        latency = steady_latency(bench, server, None, f"t{run}-")
        record("transport", latency["p50"] / 1000, latency["p99"] / 1000)
        slot = []
        bare = bare_commit_latencies(template, bench.run_directory(f"bare-{run}"), options.steady_count, options.steady_rate,
                                     from_slot=slot)
        record("bare", statistics.median(bare), percentile(bare, 0.99))
        every["bare"] += bare
        slot.sort()
        record("slot", statistics.median(slot), percentile(slot, 0.99))
        latency = daemon_latency_on(bench, server, bench.run_directory(f"latency-{run}"), f"l{run}-")
        record("daemon", latency["p50"] / 1000, latency["p99"] / 1000)
        memory = daemon_latency_on(bench, server, memory_directory(bench, run), f"m{run}-")
        record("memory", memory["p50"] / 1000, memory["p99"] / 1000)
        raw, stage_means = raw_server_latencies(bench, bench.run_directory(f"raw-{run}"), f"r{run}-")
        raw = sorted(raw)
        record("raw", statistics.median(raw) / 1000, percentile(raw, 0.99) / 1000)
        every["raw"] += [value / 1000 for value in raw]
        if "total" in stage_means:  # a daemon before the stages (INTRAPUSH_BENCH_DAEMON) has the total only
            stage_means["outside the daemon"] = statistics.mean(raw) - stage_means.pop("total")
            stages.append(stage_means)
            log("  stages (mean µs): " + ", ".join(f"{name} {value:.1f}" for name, value in stage_means.items()))
    median = {name: (statistics.median(p50s), statistics.median(p99s)) for name, (p50s, p99s) in samples.items()}
    p50_row.values = summarise(samples["daemon"][0], lambda v: f"{v:.3f} ms")
    p99_row.values = summarise(samples["daemon"][1], lambda v: f"{v:.3f} ms")
    p50_row.met = median["daemon"][0] <= 0.5
    p99_row.met = median["daemon"][1] <= 2
    for row, name in ((bare_row, "bare"), (slot_row, "slot"), (transport_row, "transport"), (memory_row, "memory"),
                      (raw_row, "raw")):
        row.values = ("", f"{median[name][0]:.3f} / {median[name][1]:.3f} ms", "")
        row.samples = {"p50": samples[name][0], "p99": samples[name][1], "each": every.get(name)}
    p50_row.samples, p99_row.samples = samples["daemon"]
    bare50s, bare99s = samples["bare"]
    for row, name in ((ratio_row, "daemon"), (raw_ratio_row, "raw")):
        p50s = [value / bare for value, bare in zip(samples[name][0], bare50s)]
        p99s = [value / bare for value, bare in zip(samples[name][1], bare99s)]
        row.values = tuple(f"{a:.2f}× / {b:.2f}×" for a, b in zip(summarise(p50s, float), summarise(p99s, float)))
        row.met = statistics.median(p50s) <= 1.3 and statistics.median(p99s) <= 2.0
        log(f"  {name} ÷ bare per run: p50 {', '.join(f'{v:.2f}' for v in p50s)}; p99 {', '.join(f'{v:.2f}' for v in p99s)}")
    slot50s = [value / slot for value, slot in zip(samples["daemon"][0], samples["slot"][0])]
    slot99s = [value / slot for value, slot in zip(samples["daemon"][1], samples["slot"][1])]
    slot_ratio_row.values = tuple(f"{a:.2f}× / {b:.2f}×" for a, b in zip(summarise(slot50s, float), summarise(slot99s, float)))
    stage_row.values = ("", ", ".join(f"{name} {statistics.median(run.get(name, 0) for run in stages):.0f}"
                                      for name in stages[0]) if stages else "—", "")
    return [p50_row, p99_row, bare_row, transport_row, memory_row, ratio_row, raw_row, raw_ratio_row,
            slot_row, slot_ratio_row, stage_row]


def mean_stages(metrics):
    """Mean µs of each `intrapush_push_stage_seconds` stage, and of the whole latency (`total`)."""
    sums, counts = {}, {}
    for line in metrics.splitlines():
        for series, name in ((r'intrapush_push_stage_seconds_(sum|count)\{stage="(\w+)"\}', None),
                             (r"intrapush_push_ack_latency_seconds_(sum|count)", "total")):
            match = re.match(series + r" (\S+)$", line)
            if match:
                stage = name or match.group(2)
                (sums if match.group(1) == "sum" else counts)[stage] = float(match.groups()[-1])
    return {stage: sums[stage] / counts[stage] * 1e6 for stage in ("to_store", "commit", "to_ack", "total") if counts.get(stage)}


def percentile(ordered, fraction):
    return ordered[max(0, int(len(ordered) * fraction) - 1)]


def raw_server_latencies(bench, directory, prefix):
    """One steady run from the raw-socket server to a fresh daemon on `directory`: the latencies
    in µs, and the daemon's own mean µs per stage and in all (`total`), from its metrics."""
    options = bench.options
    server = RawSteadyServer()
    metrics_port = free_port()
    try:
        config = bench.write_config("raw", server.port, os.path.join(directory, "notifications.sqlite3"),
                                    extra=f'metrics_listen = "127.0.0.1:{metrics_port}"\n')
        daemon = bench.start_daemon(config)
        server.accept()
        latencies = server.steady(options.steady_count, options.steady_rate, prefix=prefix)
        stage_means = mean_stages(urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=10).read().decode())
    finally:
        server.close()
    # Its connection gone, the daemon stops without waiting for an answer to its close.
    bench.stop_daemon(daemon)
    shutil.rmtree(directory)
    return latencies, stage_means


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
