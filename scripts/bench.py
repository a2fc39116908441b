#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""`make bench`: the figures of issue 5 for a release build (make release first).

Every figure is timed on the server or by the kernel, never by polling: the devserver stamps the
burst's queueing and every acknowledgement with the monotonic clock (µs), flush→ack latencies of a
steady run, and the time of every accepted connection; memory and CPU come from /proc. Progress
goes to stderr; the table goes to stdout and to .build/bench.md.

--smoke runs every figure once on tiny sizes and only checks that each was produced and that the
guarantees hold (exit 1 otherwise); it compares nothing with the targets.
"""
import json, os, shutil, signal, socket, sqlite3, statistics, subprocess, sys, time

from bench_baseline import bare_batched_rate
from bench_support import (DAEMON, DEVSERVER, FLEET_SIM, ORG, ROOT, Bench, parse_options, table, BenchError, DevServer,
                           Interrupted, NotifyListener, Row, log, now_us, proc_status, runs, summarise, tail,
                           task_cpu_and_switches, thread_cpu_by_name, wait_for)
from bench_outbox import figure_outbox
from bench_latency import figure_latency
from bench_gate import figure_gate
from bench_neighbours import figure_neighbours
from bench_record import write_record

# --- the figures -------------------------------------------------------------------------------


def figure_ingest(bench, server):
    options = bench.options
    rows = []
    breakdowns = []
    for label, template, prefix in (("empty DB", None, "e"), (f"{options.prefill:,}-row DB", "prefilled", "f")):
        row = Row(f"Durable ingest, {label}", "≥ 50,000 pushes/s",
                  f"{options.burst:,}-push burst (~300 B JSON with ids), {runs(options.runs)}, fresh daemon and "
                  f"database per run{' (a copy of the prefilled one)' if template else ''}; pushes / (server time of "
                  f"the last ack − burst queued), monotonic µs")
        rates = []
        for run in range(options.runs):
            name = f"ingest-{prefix}{run}"
            database = (bench.copy_of(bench.prefilled_template, name) if template
                        else os.path.join(bench.run_directory(name), "notifications.sqlite3"))
            daemon = bench.connected_daemon(server, database)
            before = thread_cpu_by_name(daemon.pid), thread_cpu_by_name(server.process.pid)
            rate, seconds = bench.timed_burst(server, f"{prefix}{run}-")
            if not template:
                breakdowns.append(cpu_per_push(before, (thread_cpu_by_name(daemon.pid), thread_cpu_by_name(server.process.pid)),
                                               options.burst, seconds))
            bench.stop_daemon(daemon)
            shutil.rmtree(os.path.dirname(database))
            rates.append(rate)
            log(f"  ingest {label}, run {run + 1}: {rate:,.0f} pushes/s ({seconds * 1000:,.0f} ms)")
        row.samples = rates
        row.values = summarise(rates, lambda v: f"{v:,.0f}")
        row.met = statistics.median(rates) >= 50_000
        rows.append(row)
    empty, full = rows
    slowdown = (1 - statistics.median(full.samples) / statistics.median(empty.samples)) * 100
    row = Row(f"Slowdown of ingest, {options.prefill:,}-row DB vs empty", "≤ 15 %",
              "1 − median(prefilled) / median(empty) of the two rows above; negative is faster")
    row.values = ("", f"{slowdown:.1f} %", "")
    row.met = slowdown <= 15
    return rows + [row] + ingest_against_bare(bench, empty, breakdowns)


def cpu_per_push(before, after, count, seconds):
    """µs of CPU per push in each named thread of the daemon and in the devserver, over one burst."""
    spent = {}
    for side, (old, new) in (("", (before[0], after[0])), ("devserver ", (before[1], after[1]))):
        for name, ns in new.items():
            spent[side + name] = spent.get(side + name, 0) + (ns - old.get(name, 0)) / count / 1000
    spent["wall"] = seconds * 1e6 / count
    return spent


def ingest_against_bare(bench, empty, breakdowns):
    """The bare batched insert of the same rows in the same run, the ratio, and where the daemon's
    time goes (CPU per push by thread, against the wall time per push)."""
    options = bench.options
    batch = 1000
    bare_row = Row("Bare batched insert, same rows", "(baseline)",
                   f"the burst's {options.burst:,} rows inserted by Python's sqlite3 with the daemon's statement into a copy of "
                   f"its migrated database (WAL, synchronous=FULL), {batch:,} per transaction, rows prepared beforehand; "
                   f"{runs(options.runs)} in the same bench")
    rates = [bare_batched_rate(bench.empty_template, bench.run_directory(f"bare-ingest-{run}"), options.burst, batch)
             for run in range(options.runs)]
    bare_row.values = summarise(rates, lambda v: f"{v:,.0f}")
    bare_row.samples = rates
    ratio_row = Row("Ingest ÷ bare batched insert", "≥ 0.9×",
                    "each run's empty-DB ingest ÷ the same run's bare batched insert; min, median, max")
    ratios = [ingest / bare for ingest, bare in zip(empty.samples, rates)]
    ratio_row.values = summarise(ratios, lambda v: f"{v:.2f}×")
    ratio_row.samples = ratios
    ratio_row.met = statistics.median(ratios) >= 0.9
    breakdown_row = Row("Ingest, CPU µs per push by thread", "(breakdown)",
                        "schedstat of each named thread of the daemon and of the devserver over each empty-DB burst, "
                        "÷ pushes; medians. 'wall' is the burst's time per push: with 2 cores, the sum of the threads "
                        "can be up to twice it")
    names = sorted({name for spent in breakdowns for name in spent},
                   key=lambda name: -statistics.median(spent.get(name, 0) for spent in breakdowns))
    shown = [f"{name} {statistics.median(spent.get(name, 0) for spent in breakdowns):.2f}" for name in names
             if statistics.median(spent.get(name, 0) for spent in breakdowns) >= 0.05]
    breakdown_row.values = ("", ", ".join(shown), "")
    for name in names:
        log(f"  cpu per push, {name}: {statistics.median(spent.get(name, 0) for spent in breakdowns):.2f} µs")
    return [bare_row, ratio_row, breakdown_row]


def figure_load_generator(bench, server):
    options = bench.options
    row = Row("Load generator alone", "≥ 200,000 pushes/s (4× the daemon's target)",
              f"same {options.burst:,}-push burst to `intrapush-devserver bench-client` (acks each push at once, "
              f"stores nothing), {runs(options.runs)}, server times as above")
    rates = []
    for run in range(options.runs):
        with open(os.path.join(bench.work, "bench-client.log"), "ab") as log_file:
            client = bench.spawn([DEVSERVER, "bench-client", "--server", f"127.0.0.1:{server.port}", "--org", ORG,
                                  "--token-file", bench.token_file], stdout=subprocess.DEVNULL, stderr=log_file)
        wait_for(lambda: server.stats()["connections_open"] == 1, 20, "the bench client to connect")
        rate, seconds = bench.timed_burst(server, f"g{run}-")
        bench.stop(client)
        rates.append(rate)
        log(f"  load generator, run {run + 1}: {rate:,.0f} pushes/s ({seconds * 1000:,.0f} ms)")
    row.values = summarise(rates, lambda v: f"{v:,.0f}")
    row.samples = rates
    row.met = statistics.median(rates) >= 4 * 50_000
    return [row]


def figure_idle(bench, server):
    options = bench.options
    directory = bench.run_directory("idle")
    database = os.path.join(directory, "notifications.sqlite3")
    # As under the unit (WatchdogSec=30s): the watchdog's pings and health checks are part of idle.
    notify = NotifyListener(os.path.join(directory, "notify.sock"))
    environment = dict(os.environ, NOTIFY_SOCKET=notify.path, WATCHDOG_USEC=str(int(options.watchdog * 1_000_000)))
    daemon = bench.connected_daemon(server, database, env=environment)
    bench.timed_burst(server, "m-")
    log(f"  idle: {options.burst:,} pushes stored; waiting {options.idle_wait:g} s")
    time.sleep(options.idle_wait)
    status = proc_status(daemon.pid)
    kib = lambda key: int(status[key].split()[0])
    rss, anon, file_backed = kib("VmRSS") / 1024, kib("RssAnon") / 1024, kib("RssFile") / 1024
    log(f"  idle: VmRSS {rss:.1f} MiB, RssAnon {anon:.1f} MiB, RssFile {file_backed:.1f} MiB; "
        f"measuring CPU for {options.cpu_window:g} s")
    cpu_before, switches_before = task_cpu_and_switches(daemon.pid)
    time.sleep(options.cpu_window)
    cpu_after, switches_after = task_cpu_and_switches(daemon.pid)
    # A second window of the same length under strace (which costs CPU, so not the first one).
    calls = count_syscalls(daemon.pid, options.cpu_window, os.path.join(directory, "strace.txt"))
    bench.stop_daemon(daemon)
    notify.close()
    if notify.watchdog_pings == 0:
        raise BenchError("the daemon sent no WATCHDOG=1 during the idle measurement")
    per_minute = 60 / options.cpu_window
    cpu_ms = (cpu_after - cpu_before) / 1e6 * per_minute
    switches = (switches_after - switches_before) * per_minute
    log(f"  idle: CPU {cpu_ms:.2f} ms/min, {switches:.0f} voluntary context switches/min")
    setup = (f"one daemon, heartbeat {options.heartbeat:g} s, watchdog {options.watchdog:g} s, connected, after a {options.burst:,}-push burst; 1 run")
    rows = []
    row = Row("Idle memory: VmRSS", "≤ 24 MiB", f"{setup}; /proc/PID/status {options.idle_wait:g} s after the burst")
    row.values = (f"{rss:.1f} MiB",) * 3
    row.met = rss <= 24
    rows.append(row)
    row = Row("Idle memory: RssAnon", "≤ 4 MiB", "same reading")
    row.values = (f"{anon:.1f} MiB",) * 3
    row.met = anon <= 4
    rows.append(row)
    row = Row("Idle memory: RssFile", "—", "same reading (file-backed pages: the binary, libraries, SQLite maps)")
    row.values = (f"{file_backed:.1f} MiB",) * 3
    rows.append(row)
    row = Row("Idle CPU", "≤ 5 ms/min",
              f"same daemon, the next {options.cpu_window:g} s: Σ /proc/PID/task/*/schedstat CPU ns, scaled to a "
              f"minute; {switches:.0f} voluntary context switches/min")
    row.values = (f"{cpu_ms:.2f} ms/min",) * 3
    row.met = cpu_ms <= 5
    rows.append(row)
    strace_method = f"the next {options.cpu_window:g} s under strace -f -c, scaled to a minute"
    for name, target, limit, syscalls, method in [
        ("Idle disk syncs", "0 /min", 0, ("fsync", "fdatasync"), f"fsync + fdatasync; {strace_method}"),
        ("Idle thread creations", "0 /min", 0, ("clone", "clone3"), f"clone + clone3; {strace_method}"),
        ("Idle wake-ups", "≤ 14 /min", 14, ("epoll_wait",), f"epoll_wait calls of every thread (each wake-up ends one); {strace_method}"),
    ]:
        count = sum(calls.get(call, 0) for call in syscalls) * per_minute
        row = Row(name, target, method)
        row.values = (f"{count:.0f} /min",) * 3
        row.met = count <= limit
        rows.append(row)
    return rows


def count_syscalls(pid, seconds, output):
    """System calls of every thread of `pid` over `seconds`: {name: calls}, from strace -c."""
    tracer = subprocess.Popen(["strace", "-f", "-c", "-o", output, "-p", str(pid),
                               "-e", "trace=fsync,fdatasync,clone,clone3,epoll_wait"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(seconds)
    tracer.send_signal(signal.SIGINT)
    tracer.wait(timeout=10)
    calls = {}
    with open(output) as table:
        for line in table:
            fields = line.split()
            # % time, seconds, usecs/call, calls, [errors], syscall
            if len(fields) >= 5 and fields[0][0].isdigit() and not fields[-1].startswith("total"):
                calls[fields[-1]] = int(fields[3])
    return calls


def time_to_ready(bench, server, database, run_name):
    """Seconds from just before Popen to the READY=1 datagram; the SIGTERM sent right after READY
    must stop the daemon cleanly (exit 0)."""
    directory = bench.run_directory(run_name)
    socket_path = os.path.join(directory, "notify.sock")
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(socket_path)
    try:
        config = bench.write_config("start", server.port, database)
        env = dict(os.environ, NOTIFY_SOCKET=socket_path)
        started = time.monotonic()
        daemon = bench.start_daemon(config, env=env)
        ready = None
        deadline = started + 5
        while ready is None:
            notify.settimeout(max(0.001, deadline - time.monotonic()))
            try:
                datagram = notify.recv(4096)
            except socket.timeout:
                bench.stop(daemon)
                raise BenchError(f"no READY=1 within 5 s\n{tail(bench.daemon_log)}")
            if b"READY=1" in datagram.split(b"\n"):
                ready = time.monotonic()
        bench.stop_daemon(daemon)
        return ready - started
    finally:
        notify.close()
        os.unlink(socket_path)


def figure_start(bench, server):
    options = bench.options
    rows = []
    for label, template in ((f"{options.prefill:,}-row DB", bench.prefilled_template), ("empty DB", bench.empty_template)):
        database = bench.copy_of(template, f"start-{'full' if template == bench.prefilled_template else 'empty'}")
        samples = []
        for run in range(options.start_runs):
            seconds = time_to_ready(bench, server, database, f"start-run-{run}")
            samples.append(seconds * 1000)
            log(f"  start to READY=1, {label}, run {run + 1}: {seconds * 1000:.1f} ms")
        shutil.rmtree(os.path.dirname(database))
        row = Row(f"Start to READY=1, {label}", "≤ 30 ms (median)" if template == bench.prefilled_template else "—",
                  f"NOTIFY_SOCKET datagram socket of the script; from just before Popen to READY=1; "
                  f"{runs(options.start_runs)} on one copy of the database, page cache warm; each stopped by "
                  f"SIGTERM right after READY=1, exit 0")
        row.values = summarise(samples, lambda v: f"{v:.1f} ms")
        row.met = statistics.median(samples) <= 30 if template == bench.prefilled_template else None
        rows.append(row)
    return rows


def figure_fleet(bench):
    options = bench.options
    size, low, high = options.fleet, options.reconnect_min, options.reconnect_max
    log(f"  fleet: {size} daemons, reconnect_min {low:g} s, reconnect_max {high:g} s")
    version = subprocess.run([DAEMON, "--version"], capture_output=True, text=True).stdout.strip()
    names_its_host = tuple(int(part) for part in version.split(".")[:2] if part.isdigit()) >= (0, 7)
    server = DevServer(bench, "fleet-server")
    port = server.port
    daemons = []
    directory = bench.run_directory("fleet")
    for index in range(size):
        daemon_directory = os.path.join(directory, f"d{index:03d}")
        os.makedirs(daemon_directory)
        # Each daemon its own identity: on one machine they would all derive the same one, and the
        # server would take each for the last one's second connection (S-HOST-5). A daemon before
        # 0.7 (INTRAPUSH_BENCH_DAEMON) sends none, and knows no host_id.
        identity = f'host_id = "bench-fleet-{index:03d}"\n' if names_its_host else ""
        config = bench.write_config("daemon", port, os.path.join(daemon_directory, "notifications.sqlite3"),
                                    heartbeat=10, reconnect_min=low, reconnect_max=high, extra=identity)
        daemons.append(bench.start_daemon(config, log_path=os.path.join(directory, "daemons.log")))
    try:
        wait_for(lambda: server.stats()["connections_open"] == size, 60 + size / 5, f"{size} daemons to connect", 0.1)
        log(f"  fleet: {size} connected; restarting the server on port {port}")
        server.stop()
        server = DevServer(bench, "fleet-server-2", port=port)
        restarted = now_us()  # the server is back: what the fleet's return is measured from
        stats = wait_for(lambda: (lambda s: s if s["connections_open"] >= size else None)(server.stats()),
                         high * 3 + 10, f"{size} daemons to reconnect", 0.1)
        exited = [d for d in daemons if d.poll() is not None]
        if exited:
            raise BenchError(f"{len(exited)} daemons exited\n{tail(os.path.join(directory, 'daemons.log'))}")
        back = sorted(stats["started_monotonic_us"] + t - restarted for t in stats["connection_times_us"])[:size]
        window = 100_000
        largest, first = 0, 0
        for last in range(len(back)):
            while back[last] - back[first] >= window:
                first += 1
            largest = max(largest, last - first + 1)
    finally:
        for daemon in daemons:
            if daemon.poll() is None:
                daemon.send_signal(signal.SIGTERM)
        for daemon in daemons:
            bench.stop(daemon)
        server.stop()
    share = largest / size * 100
    all_back = back[-1] / 1e6
    log(f"  fleet: largest 100 ms window {largest} daemons ({share:.1f} %), first back after {back[0] / 1e6:.2f} s, "
        f"last after {all_back:.2f} s")
    method = (f"{size} daemons (reconnect_min {low:g} s, reconnect_max {high:g} s), one devserver stopped with SIGTERM "
              f"and restarted on the same port; connection times taken by the new server; 1 run (slow)")
    row = Row("Fleet: largest share reconnecting in any 100 ms", "≤ 12 %", method)
    row.values = (f"{share:.1f} % ({largest})",) * 3
    row.met = share <= 12
    back_row = Row("Fleet: server back → last daemon back", f"≤ {low + 1:g} s (reconnect_min + 1 s)",
                   "same run, from the new server's start")
    back_row.values = (f"{all_back:.2f} s",) * 3
    back_row.met = all_back <= low + 1
    return [row, back_row, fleet_delivery(bench)]


def fleet_delivery(bench):
    """Hosts under one token, each its own identity (protocol §10): every push for the org must reach
    every host exactly once, as the hosts and the server count it (intrapush-fleet-sim deliver)."""
    hosts, pushes = bench.options.fleet_hosts, 10
    server = DevServer(bench, "fleet-delivery-server")
    try:
        answer = subprocess.run(
            [FLEET_SIM, "deliver", "--server", f"127.0.0.1:{server.port}", "--token-file", bench.token_file,
             "--org", ORG, "--hosts", str(hosts), "--pushes", str(pushes)],
            capture_output=True, text=True, timeout=600)
    finally:
        server.stop()
    lines = answer.stdout.strip().splitlines()
    if not lines:
        raise BenchError(f"intrapush-fleet-sim deliver printed nothing (exit {answer.returncode}): {answer.stderr.strip()}")
    report = json.loads(lines[-1])
    if not report["exact"] or answer.returncode != 0:
        # Not a figure but a promise broken: a host missed a push, or read one twice.
        raise BenchError(f"a push for the org did not reach every host exactly once: {lines[-1]}")
    log(f"  fleet: {hosts} hosts under one token, {pushes} pushes for the org: {report['exact_hosts']} hosts read each "
        f"exactly once, {report['duplicates']} duplicates, {report['missing']} missing; the server sent "
        f"{report['server_deliveries']} and was acknowledged {report['server_acknowledged']}; connected in "
        f"{report['connect_s']} s, delivered in {report['deliver_s']} s")
    row = Row(f"Fleet: {pushes} pushes for the org to {hosts:,} hosts under one token",
              "every host reads each exactly once",
              f"{hosts} WebSocket clients of intrapush-fleet-sim, each with its own Intrapush-Host, one token; "
              f"{pushes} pushes for the org through the devserver; the hosts' and the server's counts; 1 run")
    row.values = (f"{report['exact_hosts']:,} of {hosts:,} exact, {report['duplicates']} duplicates, "
                  f"{report['missing']} missing; {report['deliver_s']} s",) * 3
    row.met = bool(report["exact"]) and answer.returncode == 0
    return row


def figure_guarantees(bench):
    options = bench.options
    database = os.path.join(bench.run_directory("guarantees"), "notifications.sqlite3")
    # Acks that name their push's id: the devserver then checks each against the push it
    # acknowledges (ack_mismatches), so an ack out of order would show; the default text could not.
    ack_text = "received message {id}"
    server = DevServer(bench, "verify-server", verify_database=database, ack_text=ack_text)
    try:
        daemon = bench.connected_daemon(server, database, env=dict(os.environ, INTRAPUSH_ACK_TEXT=ack_text))
        bench.timed_burst(server, "v-", timeout=max(120, options.burst / 500))
        stats = server.stats()
        bench.stop_daemon(daemon)
    finally:
        server.stop()
    with sqlite3.connect(database) as connection:
        rows, = connection.execute("SELECT count(*) FROM notifications").fetchone()
    passed = stats["acks_before_commit"] == 0 and stats["ack_mismatches"] == 0 and rows == options.burst
    log(f"  guarantees: acks_before_commit {stats['acks_before_commit']}, ack_mismatches {stats['ack_mismatches']}, "
        f"rows {rows:,} of {options.burst:,} pushes")
    row = Row("Guarantees (not timed)", "acks_before_commit 0, ack_mismatches 0, rows = pushes",
              f"one {options.burst:,}-push burst, devserver --verify-database on the daemon's database (each ack "
              f"looked up through another connection) and ack_text \"received message {{id}}\" (each ack matched "
              f"to its push, so one out of order is a mismatch)")
    row.values = (f"{stats['acks_before_commit']} / {stats['ack_mismatches']} / {rows:,}",) * 3
    row.met = passed
    row.is_guarantee = True
    return [row]


def run_alone(bench, measure):
    """Runs a figure that starts its own servers; stops whatever it left running."""
    before = list(bench.processes)
    try:
        return measure(bench)
    finally:
        for process in list(bench.processes):
            if process not in before:
                bench.stop(process)


def with_server(bench, name, body):
    """Runs `body(server)` with a devserver of its own; stops whatever it left running."""
    before = list(bench.processes)
    server = DevServer(bench, f"{name}-server")
    try:
        return body(server)
    finally:
        for process in list(bench.processes):
            if process not in before:
                bench.stop(process)


# --- the table ---------------------------------------------------------------------------------


def main():
    options = parse_options()
    for binary in (DAEMON, DEVSERVER):
        if not os.access(binary, os.X_OK):
            sys.exit(f"{binary} is missing: run `make release` first")

    def interrupted(signum, frame):
        raise Interrupted()

    signal.signal(signal.SIGTERM, interrupted)
    # Explicitly: a shell that starts the script in the background sets SIGINT to be ignored.
    signal.signal(signal.SIGINT, interrupted)
    bench = Bench(options)
    rows = []
    started = time.monotonic()
    figures = [("ingest", figure_ingest, ["Durable ingest, empty DB", "Durable ingest, prefilled DB", "Slowdown",
                                          "Bare batched insert", "Ingest ÷ bare", "Ingest CPU by thread"]),
               ("generator", figure_load_generator, ["Load generator alone"]),
               ("latency", figure_latency, ["Latency at 1,000 pushes/s", "Bare SQLite commit", "Latency ÷ bare commit",
                                            "Raw-socket latency", "Raw-socket ÷ bare commit"]),
               ("idle", figure_idle, ["Idle memory and CPU"]),
               ("start", figure_start, ["Start to READY=1"]),
               ("fleet", figure_fleet, ["Fleet", "Fleet: reconnected", "Fleet: pushes for the org"]),
               ("outbox", figure_outbox, ["Outbox drain", "Outbox queueing", "Send → server"]),
               ("gate", figure_gate, ["Gate, as nobody", "Gate: 1,000 idle connections of one user", "Gate: push → subscriber",
                                      "Push → ack beside a reader"]),
               ("neighbours", figure_neighbours, ["Neighbours: quiet push → ack p99 / max",
                                                  "Neighbours: push → ack beside oneway marks", "Neighbours: beside a mark of all",
                                                  "Neighbours: quiet push → ack p99 / max, 1,000,000 rows",
                                                  "Neighbours: beside four searches", "Neighbours: another reader's page",
                                                  "Neighbours: connections"]),
               ("guarantees", figure_guarantees, ["Guarantees (not timed)"])]
    try:
        log(f"intrapush bench{' (smoke)' if options.smoke else ''}: work directory {bench.work}")
        if {"ingest", "start", "gate", "neighbours"} & set(options.only):
            with_server(bench, "templates", bench.make_templates)
        for name, measure, titles in figures:
            if name not in options.only:
                continue
            log(f"{name}:")
            try:
                if name in ("fleet", "guarantees"):
                    measured = run_alone(bench, measure)
                else:
                    measured = with_server(bench, name, lambda server: measure(bench, server))
                for row in measured:
                    row.section = name
                rows += measured
            except BenchError as error:
                log(f"  {name} FAILED: {error}")
                for title in titles:
                    row = Row(title, "—", "")
                    row.error = str(error)
                    row.is_guarantee = name == "guarantees"
                    rows.append(row)
    except (KeyboardInterrupt, Interrupted):
        log("interrupted; cleaning up")
        bench.cleanup()
        sys.exit(130)
    except BenchError as error:
        log(f"bench FAILED: {error}")
        bench.cleanup()
        sys.exit(1)
    finally:
        bench.cleanup()
    output = table(rows, options.smoke)
    machine = f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at the end"
    header = (f"# intrapush bench{' (smoke: tiny sizes, nothing judged)' if options.smoke else ''}\n\n"
              f"Release build, {machine}; {time.monotonic() - started:.0f} s.\n\n")
    with open(os.path.join(ROOT, ".build", "bench.md"), "w") as file:
        file.write(header + output + "\n")
    write_record(os.path.join(ROOT, ".build", "bench.json"), rows, options, time.monotonic() - started)
    print(header + output)
    failed = [row for row in rows if row.error or (getattr(row, "is_guarantee", False) and not row.met)]
    if failed:
        log(f"{len(failed)} figures failed: " + ", ".join(row.figure for row in failed))
        sys.exit(1)


if __name__ == "__main__":
    main()
