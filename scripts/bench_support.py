# SPDX-License-Identifier: Apache-2.0
"""The machinery of `make bench` (scripts/bench.py): processes, the devserver's API, databases,
/proc readings, and the table's rows."""
import argparse, glob, json, os, random, shutil, signal, socket, sqlite3, statistics, subprocess, sys, tempfile, time
import threading, urllib.request

# Everything here talks to servers on loopback: the script's own HTTP requests (urllib) and the
# daemons it starts (which honour https_proxy/http_proxy) must not go through a proxy from the
# caller's environment.
for _variable in ("http_proxy", "https_proxy", "no_proxy", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY"):
    os.environ.pop(_variable, None)

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(ROOT, "Tests", "support"))
import intrapush_test_support as test_support  # noqa: E402
# INTRAPUSH_BENCH_RELEASE: another build's directory, to compare two commits on one machine.
RELEASE = os.environ.get("INTRAPUSH_BENCH_RELEASE") or os.path.join(ROOT, ".build", "release")
# INTRAPUSH_BENCH_DAEMON: another build of the daemon (a release before, say) against the same devserver.
DAEMON = os.environ.get("INTRAPUSH_BENCH_DAEMON") or os.path.join(RELEASE, "intrapushd")
DEVSERVER = os.path.join(RELEASE, "intrapush-devserver")
FLEET_SIM = os.path.join(RELEASE, "intrapush-fleet-sim")
TOKEN = "bench-throwaway-token"
ORG = "acme"
MiB = 1024 * 1024


def log(message):
    print(message, file=sys.stderr, flush=True)


def now_us():
    """CLOCK_MONOTONIC in µs, the clock of the devserver's started_monotonic_us."""
    return time.monotonic_ns() // 1000


class BenchError(Exception):
    pass


class Interrupted(BaseException):
    pass


def wait_for(condition, timeout, what, interval=0.01):
    """The tests' wait (Tests/support), failing as the bench's rows expect."""
    try:
        return test_support.wait_for(what, condition, timeout, interval)
    except AssertionError as error:
        raise BenchError(str(error)) from None


class DevServer:
    """One intrapush-devserver process and its HTTP API."""

    def __init__(self, bench, name, port=0, verify_database=None, ack_text=None):
        self.bench = bench
        self.log_path = os.path.join(bench.work, f"{name}.log")
        args = [DEVSERVER, "serve", "--listen", f"127.0.0.1:{port}", "--token-file", bench.token_file, "--org", ORG]
        if verify_database:
            args += ["--verify-database", verify_database]
        if ack_text:
            args += ["--ack-text", ack_text]
        with open(self.log_path, "ab") as log_file:
            self.process = bench.spawn(args, stdout=subprocess.PIPE, stderr=log_file, text=True)
        line = self.process.stdout.readline().strip()
        if not line.startswith("listening on "):
            raise BenchError(f"devserver did not start: {line!r}\n{tail(self.log_path)}")
        self.port = int(line.rsplit(":", 1)[1])

    def request(self, method, path):
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", data=b"" if method == "POST" else None,
                                         method=method)
        with urllib.request.urlopen(request, timeout=30) as answer:
            return json.load(answer)

    def stats(self):
        return self.request("GET", "/stats")

    def stop(self):
        self.bench.stop(self.process)


class Bench:
    def __init__(self, options):
        self.options = options
        self.work = tempfile.mkdtemp(dir="/var/tmp", prefix="intrapush-bench-")
        self.processes = []
        self.token_file = os.path.join(self.work, "token")
        with open(self.token_file, "w") as file:
            file.write(TOKEN + "\n")
        self.daemon_log = os.path.join(self.work, "daemons.log")
        self.rows = []
        self.empty_template = None
        self.prefilled_template = None

    # --- processes -------------------------------------------------------------------------

    def spawn(self, args, **kwargs):
        process = subprocess.Popen(args, **kwargs)
        self.processes.append(process)
        return process

    def stop(self, process, timeout=10):
        """SIGTERM, then SIGKILL after `timeout`; returns the exit status."""
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if process in self.processes:
            self.processes.remove(process)
        if process.stdout:
            process.stdout.close()
        return process.returncode

    def cleanup(self):
        for process in list(self.processes):
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + 5
        for process in list(self.processes):
            try:
                process.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self.processes.clear()
        shutil.rmtree(self.work, ignore_errors=True)
        # Databases the latency figure put on tmpfs, named after the work directory.
        for path in glob.glob(os.path.join("/dev/shm", os.path.basename(self.work) + "-*")):
            shutil.rmtree(path, ignore_errors=True)

    def write_config(self, name, port, database, heartbeat=None, reconnect_min=1, reconnect_max=60, extra=""):
        heartbeat = heartbeat or self.options.heartbeat
        path = os.path.join(os.path.dirname(database), f"{name}.conf")
        with open(path, "w") as file:
            file.write(f'host = "127.0.0.1:{port}"\norg = "{ORG}"\ntoken = "{TOKEN}"\ndatabase = "{database}"\n'
                       f'heartbeat_interval = {heartbeat}\nreconnect_min = {reconnect_min}\n'
                       f'reconnect_max = {reconnect_max}\nlog_level = "warning"\n' + extra)
        return path

    def start_daemon(self, config, env=None, log_path=None):
        with open(log_path or self.daemon_log, "ab") as log_file:
            return self.spawn([DAEMON, "--config", config], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=log_file, env=env)

    def connected_daemon(self, server, database, name="daemon", heartbeat=None, env=None, extra=""):
        """A daemon on `database`, connected to `server` (its only connection); `extra` is more of its configuration."""
        daemon = self.start_daemon(self.write_config(name, server.port, database, heartbeat=heartbeat, extra=extra), env=env)
        wait_for(lambda: daemon.poll() is not None or server.stats()["connections_open"] == 1, 20, "the daemon to connect")
        if daemon.poll() is not None:
            raise BenchError(f"intrapushd exited with {daemon.returncode}\n{tail(self.daemon_log)}")
        return daemon

    def stop_daemon(self, daemon):
        status = self.stop(daemon)
        if status != 0:
            raise BenchError(f"intrapushd exited with {status} on SIGTERM\n{tail(self.daemon_log)}")

    def run_directory(self, name):
        path = os.path.join(self.work, name)
        os.makedirs(path, exist_ok=True)
        return path

    # --- the burst, timed on the server -----------------------------------------------------

    def timed_burst(self, server, prefix, count=None, timeout=None):
        """Queues a burst; returns pushes/s from its queueing to the last acknowledgement, both server times."""
        count = count or self.options.burst
        before = server.stats()
        answer = server.request("POST", f"/push/burst?count={count}&size=300&prefix={prefix}")
        stats = wait_for(lambda: (lambda s: s if s["acked"] >= before["acked"] + count else None)(server.stats()),
                         timeout or max(60, count / 1000), f"{count:,} acknowledgements", interval=0.02)
        if stats["ack_mismatches"] != before["ack_mismatches"]:
            raise BenchError(f"{stats['ack_mismatches'] - before['ack_mismatches']} acknowledgements did not match")
        seconds = (stats["last_ack_us"] - answer["queued_us"]) / 1e6
        return count / seconds, seconds

    # --- the databases ----------------------------------------------------------------------

    def migrated_template(self, server):
        """A database migrated by the real daemon, empty (made once per bench)."""
        if self.empty_template:
            return self.empty_template
        directory = self.run_directory("templates")
        database = os.path.join(directory, "migrated.sqlite3")
        daemon = self.connected_daemon(server, database, name="migrate")
        self.stop_daemon(daemon)
        with sqlite3.connect(database) as connection:
            connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            count, = connection.execute("SELECT count(*) FROM notifications").fetchone()
        if count != 0:
            raise BenchError(f"the migrated database holds {count} rows, expected none")
        self.empty_template = database
        return database

    def make_templates(self, server):
        """The migrated database, then one bulk-filled with `--prefill` rows."""
        database = self.migrated_template(server)
        self.prefilled_template = os.path.join(os.path.dirname(database), "prefilled.sqlite3")
        shutil.copyfile(database, self.prefilled_template)
        started = time.monotonic()
        fill(self.prefilled_template, self.options.prefill)
        log(f"prefilled {self.options.prefill:,} rows in {time.monotonic() - started:.1f} s "
            f"({os.path.getsize(self.prefilled_template) / MiB:,.0f} MiB)")

    def copy_of(self, template, name):
        path = os.path.join(self.run_directory(name), "notifications.sqlite3")
        shutil.copyfile(template, path)
        # Writeback of hundreds of MiB of dirty pages would otherwise compete with the daemon's fsyncs.
        os.sync()
        return path


def fill(database, rows):
    """Bulk-inserts realistic rows (as scripts/bench_cli.py does) in one transaction."""
    words = ("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa "
             "quebec romeo sierra tango uniform victor whiskey xray yankee zulu 服务器 告警 磁盘 内存 发布 更新").split()
    rng = random.Random(7)
    start_ms = int(time.time() * 1000) - rows * 50

    def generated():
        for i in range(rows):
            title = " ".join(rng.choice(words) for _ in range(3))
            body = " ".join(rng.choice(words) for _ in range(20))
            # "p-" ids never collide with the bursts' prefixes.
            payload = json.dumps({"id": f"p-{i}", "title": title, "body": body, "host": f"host-{i % 500:03d}.corp"},
                                 ensure_ascii=False)
            yield f"p-{i}", start_ms + i * 50, payload, title, body, start_ms if i % 3 == 0 else None

    connection = sqlite3.connect(database, isolation_level=None)
    connection.execute("BEGIN")
    connection.executemany("INSERT INTO notifications (message_id, received_at, payload, title, body, read_at) "
                           "VALUES (?,?,?,?,?,?)", generated())
    # Every third read for everyone, as a mark from before marks were per person.
    # Read marks per person exist from schema 6 on (a daemon before it, benched for comparison, has none).
    if connection.execute("SELECT 1 FROM sqlite_master WHERE name = 'notification_reads'").fetchone():
        connection.execute("INSERT INTO notification_reads SELECT id, -1, read_at FROM notifications WHERE read_at IS NOT NULL")
    connection.execute("COMMIT")
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    connection.close()


def tail(path, lines=15):
    try:
        with open(path, errors="replace") as file:
            return "".join(file.readlines()[-lines:]).rstrip() or "(log empty)"
    except OSError:
        return "(no log)"


def proc_status(pid):
    values = {}
    with open(f"/proc/{pid}/status") as file:
        for line in file:
            key, value = line.split(":", 1)
            values[key] = value.strip()
    return values


def task_cpu_and_switches(pid):
    """CPU ns (schedstat's first field) and voluntary context switches, summed over the threads."""
    cpu = switches = 0
    for task in glob.glob(f"/proc/{pid}/task/*"):
        try:
            with open(f"{task}/schedstat") as file:
                cpu += int(file.read().split()[0])
            with open(f"{task}/status") as file:
                for line in file:
                    if line.startswith("voluntary_ctxt_switches:"):
                        switches += int(line.split()[1])
        except (OSError, IndexError, ValueError):
            pass  # a thread that ended between listing and reading
    return cpu, switches

def thread_cpu_by_name(pid):
    """CPU ns per thread name (threads of one name summed), from schedstat."""
    cpu = {}
    for task in glob.glob(f"/proc/{pid}/task/*"):
        try:
            with open(f"{task}/comm") as file:
                name = file.read().strip()
            with open(f"{task}/schedstat") as file:
                cpu[name] = cpu.get(name, 0) + int(file.read().split()[0])
        except (OSError, IndexError, ValueError):
            pass  # a thread that ended between listing and reading
    return cpu


class Row:
    def __init__(self, figure, target, method):
        self.figure, self.target, self.method = figure, target, method
        self.values = None  # (min, median, max) as text
        self.met = None  # True, False, or None when not judged
        self.error = None
        self.is_guarantee = False
        self.samples = None  # what the figures of docs/performance.md draw (bench_record.py)
        self.section = None


def runs(count):
    return f"{count} run" if count == 1 else f"{count} runs"


def summarise(samples, fmt):
    return fmt(min(samples)), fmt(statistics.median(samples)), fmt(max(samples))


class NotifyListener:
    """The datagram socket systemd would own as NOTIFY_SOCKET, read on a thread so that the daemon
    never waits on a full queue; counts the WATCHDOG=1 pings."""

    def __init__(self, path):
        self.path = path
        self.watchdog_pings = 0
        self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.socket.bind(path)
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        while True:
            try:
                datagram = self.socket.recv(4096)
            except OSError:
                return
            if not datagram:
                return
            self.watchdog_pings += datagram.split(b"\n").count(b"WATCHDOG=1")

    def close(self):
        self.socket.shutdown(socket.SHUT_RDWR)
        self.socket.close()
        os.unlink(self.path)


# --- the table and the options -----------------------------------------------------------------


def table(rows, smoke):
    lines = ["| figure | target | min | median | max | met? | method |", "| --- | --- | --- | --- | --- | --- | --- |"]
    for row in rows:
        if row.error:
            cells = ["—", "—", "—", "ERROR", row.error.splitlines()[0]]
        else:
            if getattr(row, "is_guarantee", False):
                verdict = "PASS" if row.met else "FAIL"
            elif smoke or row.met is None:
                verdict = "—"
            else:
                verdict = "yes" if row.met else "NO"
            cells = [*row.values, verdict, row.method]
        lines.append("| " + " | ".join([row.figure, row.target, *cells]) + " |")
    return "\n".join(lines)


def parse_options():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--smoke", action="store_true", help="tiny sizes; check only that every figure is produced")
    parser.add_argument("--burst", type=int, help="pushes per burst (100,000)")
    parser.add_argument("--runs", type=int, help="runs of the burst figures (5)")
    parser.add_argument("--prefill", type=int, help="rows of the prefilled database (1,000,000)")
    parser.add_argument("--steady-count", type=int, help="pushes per steady run (10,000)")
    parser.add_argument("--steady-rate", type=int, help="pushes per second of a steady run (1,000)")
    parser.add_argument("--steady-runs", type=int, help="steady runs (3)")
    parser.add_argument("--heartbeat", type=float, help="heartbeat_interval of the idle daemon, s (10)")
    parser.add_argument("--idle-wait", type=float, help="wait after the burst before reading memory, s (25)")
    parser.add_argument("--cpu-window", type=float, help="idle CPU measured over, s (60)")
    parser.add_argument("--watchdog", type=float, help="WATCHDOG_USEC of the idle daemon, s (30, the unit's)")
    parser.add_argument("--start-runs", type=int, help="runs of start to READY=1 (11)")
    parser.add_argument("--fleet", type=int, help="daemons in the fleet (200)")
    parser.add_argument("--fleet-hosts", type=int, help="simulated hosts under one token for the org's pushes (1000)")
    parser.add_argument("--reconnect-min", type=float, help="reconnect_min of the fleet, s (1, the default)")
    parser.add_argument("--reconnect-max", type=float, help="reconnect_max of the fleet, s (60, the default)")
    parser.add_argument("--only", help="comma-separated figures to run: ingest,generator,latency,idle,start,fleet,outbox,"
                                       "gate,neighbours,guarantees (default all)")
    options = parser.parse_args()
    full = dict(burst=100_000, runs=5, prefill=1_000_000, steady_count=10_000, steady_rate=1000, steady_runs=3,
                heartbeat=10, idle_wait=25, cpu_window=60, watchdog=30, start_runs=11, fleet=200, fleet_hosts=1000, reconnect_min=1, reconnect_max=60)
    smoke = dict(burst=2_000, runs=1, prefill=20_000, steady_count=300, steady_rate=1000, steady_runs=1, heartbeat=1,
                 idle_wait=2, cpu_window=1, watchdog=1, start_runs=3, fleet=10, fleet_hosts=20, reconnect_min=0.2, reconnect_max=1)
    for key, value in (smoke if options.smoke else full).items():
        if getattr(options, key) is None:
            setattr(options, key, value)
    figures = ["ingest", "generator", "latency", "idle", "start", "fleet", "outbox", "gate", "neighbours", "guarantees"]
    options.only = options.only.split(",") if options.only else figures
    unknown = set(options.only) - set(figures)
    if unknown:
        parser.error(f"unknown figures: {', '.join(sorted(unknown))}")
    return options
