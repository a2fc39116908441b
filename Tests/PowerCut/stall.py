#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""The stalled-disk test of the daemon: when an fsync of its database does not return, does
intrapushd still answer its local API, say what is wrong, and hold back the acknowledgements
until the commit is done?

A disk that stops answering (a dying drive, a hung SAN, a full thin pool) leaves the daemon's
writer in fsync for as long as it likes. That must not take the local API with it: a person
asking `intrapush status` then is the one who needs an answer. The daemon's database (and only
it, with the local API's socket beside it) lives on a cutfs mount (cutfs.py), whose `hold`
makes every fsync wait until `release`. The server (stall_server.py) sends pushes when this
test asks and notes when each acknowledgement arrives; the daemon's sd_notify datagrams come to
a socket of ours (NOTIFY_SOCKET), as they would to systemd.

1. The daemon starts (READY=1) and connects; push s-0 is acknowledged: the baseline.
2. `hold`; pushes s-1..s-5. While held, every io.intrapush.Daemon.Status call (made by hand on
   the local API's socket, every 200 ms) answers within 1 s, and soon says since when a commit
   has been running (`commit_running_since`); `intrapush status`, run by a user who asks the
   daemon (`readers = "everyone"`, the user nobody), exits 0 within 1 s with its `Stalled:` line,
   and `intrapush status --json` names `commit_running_since`; a STATUS= line
   saying the write "has not finished for" N s comes within about 2 s of the stall; the log
   has `commit_stalled` once it passes 5 s; and none of s-1..s-5 is acknowledged.
3. `release`: s-1..s-5 are acknowledged, each once, on the same connection; the database holds
   s-0..s-5 once each; the status line and Status stop speaking of a stall.
4. s-6 is acknowledged as usual; SIGTERM stops the daemon with 0, and s-0..s-6 are stored once.
The acknowledgement's times are the server's: one that arrived before `release` went out before
the commit could have finished.

Why not root's `intrapush status`: root reads the database itself, and SQLite, opening the WAL as
root, fchowns it to the database's owner. The kernel's FUSE client holds a file's inode lock for
the whole of its fsync, and a chown needs that lock, so under cutfs root's status waits for the
release, whatever the daemon does (ext4 and XFS do not hold it through fsync). `--cli-user root`
shows it.

    stall.py [--binaries .build/release] [--hold-seconds 6] [--cli-user nobody] [--keep]

Run as root with Debian's /usr/bin/python3 (python3-fusepy). Prints what the daemon said and how
fast, then exits 0, or 1 listing what failed; the work directory (daemon.log, cutfs.log,
notify.log) is kept on failure or with --keep. Nothing may stay held when the test ends: a
process in a held fsync cannot even be killed, so every way out releases first.
"""
import argparse
import collections
import json
import os
import pwd
import re
import shutil
import socket
import sqlite3
import subprocess
import tempfile
import threading
import time

from harness import CutFSMount, mounted_under
from intrapush_test_support import daemon_environment, start_daemon, stop, wait_for
from stall_server import ACK_TEXT, StallServer

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
# Heartbeats go on every second (the server echoes them), but a dead peer is declared only long
# after the hold: whether heartbeats flow during a stall is not what this test asks.
# `readers = "everyone"`: an unprivileged user's `intrapush status` asks the daemon.
CONFIG = """host = "127.0.0.1:{port}"
org = "acme"
token = "stall-token"
database = "{database}"
heartbeat_interval = "1s"
dead_peer_timeout = "{dead_peer}s"
reconnect_min = "100ms"
reconnect_max = "1s"
connect_timeout = "2s"
log_level = "info"
ack_text = "{ack}"
readers = "everyone"
"""
ANSWER_LIMIT = 1.0      # s: the acceptance limit for a Status answer and for `intrapush status`
STATUS_LINE_LIMIT = 2.5  # s from the stall to the STATUS= line (reported after 1 s, checked each s)
LOGGED_AFTER = 5.0      # s: the daemon logs commit_stalled once a write has run this long
POLL = 0.2              # s between Status calls while held
STALLED = "has not finished for"  # the daemon's status line during a stall
HELD = [f"s-{n}" for n in range(1, 6)]


class Notifications:
    """The daemon's sd_notify datagrams, received on a unix datagram socket as systemd would:
    (time.monotonic(), line) for each line, a datagram holding one or more."""

    def __init__(self, path, log):
        self.path, self.log = path, log
        self.lock = threading.Lock()
        self.lines = []
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(path)
        threading.Thread(target=self.receive, daemon=True).start()

    def receive(self):
        while True:
            try:
                datagram = self.sock.recv(65536)
            except OSError:
                return  # closed
            now = time.monotonic()
            with self.lock:
                for line in datagram.decode("utf-8", "replace").split("\n"):
                    if line:
                        self.lines.append((now, line))
                        self.log.write(f"{now:.3f} {line}\n")
            self.log.flush()

    def ready(self):
        with self.lock:
            return any(line == "READY=1" for _, line in self.lines)

    def statuses(self):
        """(time, text) of every STATUS= line so far."""
        with self.lock:
            return [(at, line[len("STATUS="):]) for at, line in self.lines if line.startswith("STATUS=")]

    def close(self):
        self.sock.close()


def call_status(socket_path, timeout=5.0):
    """One io.intrapush.Daemon.Status call on the local API (Varlink: JSON and a NUL each way);
    (seconds it took, the reply's parameters or None, what went wrong or None)."""
    started = time.monotonic()
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(timeout)
            conn.connect(socket_path)
            conn.sendall(json.dumps({"method": "io.intrapush.Daemon.Status", "parameters": {}}).encode() + b"\0")
            buffer = b""
            while b"\0" not in buffer:
                chunk = conn.recv(65536)
                if not chunk:
                    raise OSError(f"the daemon closed the connection after {buffer[:200]!r}")
                buffer += chunk
    except OSError as error:
        return time.monotonic() - started, None, f"{type(error).__name__}: {error}"
    reply = json.loads(buffer.split(b"\0", 1)[0])
    if "error" in reply:
        return time.monotonic() - started, None, f"error reply {reply['error']} {reply.get('parameters')}"
    return time.monotonic() - started, reply.get("parameters", {}), None


def run_cli(binary, database, environment, user, *options):
    """`intrapush status --database DATABASE [OPTIONS]` as `user` (a pwd entry):
    (seconds, exit status or None, stdout, stderr)."""
    who = {} if user.pw_uid == 0 else dict(user=user.pw_uid, group=user.pw_gid, extra_groups=[])
    started = time.monotonic()
    try:
        done = subprocess.run([binary, "status", "--database", database, *options], env=environment,
                              capture_output=True, text=True, timeout=10, **who)
    except subprocess.TimeoutExpired:
        return time.monotonic() - started, None, "", "still running after 10 s"
    return time.monotonic() - started, done.returncode, done.stdout, done.stderr


def stored(database):
    """How many times each push id is in `notifications` (read-only: the daemon owns it)."""
    db = sqlite3.connect(f"file:{database}?mode=ro", uri=True, isolation_level=None)
    try:
        return collections.Counter(row[0] for row in db.execute("SELECT message_id FROM notifications"))
    finally:
        db.close()


def held_now(fs):
    """How many fsyncs cutfs holds now."""
    return int(dict(word.split("=", 1) for word in fs.command("stats").split()[1:])["held"])


class Stall:
    """One run: its figures (the report) and its problems (empty: passed)."""

    def __init__(self, options, workdir):
        self.options, self.workdir = options, workdir
        self.problems = []
        self.figures = dict(status_calls=0, slowest_status=0.0, daemon_stalled_for=None,
                            status_line_seconds=None, cli_text=None, cli_json=None, cli_said=None)
        self.database = os.path.join(workdir, "mnt", "state", "notifications.sqlite3")
        self.api_socket = self.database + ".sock"  # beside the database, on the mount
        self.binaries = options.binaries
        self.status_failures, self.slow_statuses = [], []

    def check(self, ok, problem):
        if not ok:
            self.problems.append(problem)
        return ok

    def status(self):
        """A timed Status call, its time and any failure noted (summed up by `verdict_on_status`):
        the state, or None."""
        seconds, parameters, error = call_status(self.api_socket)
        self.figures["status_calls"] += 1
        self.figures["slowest_status"] = max(self.figures["slowest_status"], seconds)
        if error:
            self.status_failures.append(f"{error} after {seconds * 1000:.0f} ms")
            return None
        if seconds >= ANSWER_LIMIT:
            self.slow_statuses.append(seconds)
        return parameters.get("state", {})

    def verdict_on_status(self):
        """Every Status call must have answered, within ANSWER_LIMIT: one problem for each kind."""
        calls = self.figures["status_calls"]
        if self.status_failures:
            self.problems.append(f"{len(self.status_failures)} of {calls} Status calls failed; "
                                 f"the first: {self.status_failures[0]}")
        if self.slow_statuses:
            self.problems.append(f"{len(self.slow_statuses)} of {calls} Status calls took "
                                 f"{ANSWER_LIMIT:.0f} s or more (slowest {max(self.slow_statuses) * 1000:.0f} ms)")

    def run(self):
        workdir = self.workdir
        server = StallServer()
        config = os.path.join(workdir, "intrapush.conf")
        with open(config, "w") as file:
            file.write(CONFIG.format(port=server.port, database=self.database, ack=ACK_TEXT,
                                     dead_peer=int(self.options.hold_seconds) + 30))
        environment = daemon_environment(workdir, os.environ)
        notify_log = open(os.path.join(workdir, "notify.log"), "w")
        notifications = Notifications(os.path.join(workdir, "notify"), notify_log)
        cutfs_log = open(os.path.join(workdir, "cutfs.log"), "ab")
        self.daemon_log = os.path.join(workdir, "daemon.log")
        daemon_log = open(self.daemon_log, "ab")
        os.makedirs(os.path.join(workdir, "backing"))  # the daemon creates `state` in it
        try:
            with CutFSMount(os.path.join(workdir, "backing"), os.path.join(workdir, "mnt"),
                            os.path.join(workdir, "ctl"), log=cutfs_log) as fs:
                daemon = start_daemon(os.path.join(self.binaries, "intrapushd"), config,
                                      dict(environment, NOTIFY_SOCKET=notifications.path), stderr=daemon_log)
                try:
                    self.scenario(fs, daemon, server, notifications, environment)
                except AssertionError as error:  # a wait timed out: the steps after it cannot run
                    self.problems.append(str(error))
                finally:
                    try:
                        fs.command("release")  # a daemon in a held fsync could not even be killed
                    except OSError as error:  # cutfs is gone: its held fsyncs went with it
                        self.problems.append(f"cutfs did not take the release: {error}")
                    if daemon.poll() is None:
                        daemon.kill()
                        daemon.wait()
                    self.verdict_on_status()
        except Exception as error:  # noqa: BLE001 -- reported with the rest, the directory kept
            self.problems.append(f"{type(error).__name__}: {error}")
        finally:
            server.close()
            notifications.close()
            for log in (notify_log, cutfs_log, daemon_log):
                log.close()

    def scenario(self, fs, daemon, server, notifications, environment):
        figures = self.figures
        running = lambda: daemon.poll() is None  # noqa: E731
        wait_for("READY=1 and the connection", lambda: not running()
                 or (notifications.ready() and server.latest() is not None), timeout=20)
        if not running():
            raise AssertionError(f"the daemon exited {daemon.returncode} before connecting")

        # 1. The baseline: a push is stored and acknowledged, and no stall is reported.
        connection = server.push("s-0")
        wait_for("the acknowledgement of s-0", lambda: server.acks_of("s-0"), timeout=10)
        state = self.status()
        self.check(state is None or state.get("commit_running_since") is None,
                   f"Status reports a stalled commit before any stall: {state}")

        # 2. The stall.
        fs.command("hold")
        try:
            for message_id in HELD:
                server.push(message_id)
                time.sleep(0.005)
            wait_for("cutfs to hold an fsync", lambda: held_now(fs) > 0, timeout=5)
            stalled_at = time.monotonic()
            seen = self.poll_until(lambda state: state.get("commit_running_since") is not None,
                                   deadline=stalled_at + 5)
            if self.check(seen is not None, "Status never reported commit_running_since while held"):
                self.run_clis(environment)
            release_at = stalled_at + self.options.hold_seconds
            logged_by = release_at + 3  # the 5 s mark is checked on a 1 s tick: some slack
            last = self.poll_until(
                lambda state: time.monotonic() >= release_at and (
                    self.options.hold_seconds <= LOGGED_AFTER or self.logged_stall()),
                deadline=logged_by, keep_polling=True)
            seen_held = time.monotonic() - stalled_at
            if self.check(last is not None and last.get("commit_running_since") is not None,
                          f"Status no longer reported commit_running_since after {seen_held:.1f} s held: {last}"):
                said = figures["daemon_stalled_for"] = (last["updated_at"] - last["commit_running_since"]) / 1000
                # The daemon counts from when the write began, a little before cutfs was seen holding it.
                self.check(seen_held - 0.5 <= said <= seen_held + 1,
                           f"Status said stalled for {said:.1f} s after {seen_held:.1f} s held")
            self.check_status_line(notifications, stalled_at)
            if self.options.hold_seconds > LOGGED_AFTER:
                self.check(self.logged_stall(), f"no commit_stalled in the log after {time.monotonic() - stalled_at:.1f} s held")
            self.check(running(), f"the daemon exited {daemon.returncode} during the stall")
        finally:
            fs.command("release")
            released = time.monotonic()
            figures["held_for"] = released - stalled_at if "stalled_at" in locals() else None

        # 3. After the stall: everything committed once and acknowledged, no stall reported.
        wait_for("the acknowledgements of s-1..s-5", lambda: all(server.acks_of(m) for m in HELD), timeout=15)
        early = [(m, round(released - at, 3)) for m in HELD for _, at in server.acks_of(m) if at < released]
        self.check(not early, f"acknowledged before the release (s before it): {early}")
        counts = stored(self.database)
        self.check(all(counts[m] == 1 for m in ["s-0"] + HELD),
                   f"after the release, notifications holds {dict(counts)} (s-0..s-5 once each expected)")
        try:
            wait_for("a STATUS= line without the stall after the release", lambda: any(
                at > released and STALLED not in text for at, text in notifications.statuses())
                and STALLED not in notifications.statuses()[-1][1], timeout=5)
        except AssertionError as error:
            self.problems.append(f"{error}; last: {notifications.statuses()[-1:]}")
        cleared = self.poll_until(lambda state: state.get("commit_running_since") is None,
                                  deadline=time.monotonic() + 3)
        self.check(cleared is not None, "Status still reports commit_running_since 3 s after the release")

        # 4. Business as usual, and a clean stop.
        server.push("s-6")
        wait_for("the acknowledgement of s-6", lambda: server.acks_of("s-6"), timeout=10)
        time.sleep(0.3)  # a duplicate acknowledgement would come right behind
        everything = ["s-0"] + HELD + ["s-6"]
        acks = {m: server.acks_of(m) for m in everything}
        figures["acks"] = sum(len(a) for a in acks.values())
        self.check(all(len(a) == 1 and a[0][0] == connection for a in acks.values()),
                   f"acknowledgements (connection, time) not once each on connection {connection}: {acks}")
        self.check(server.connection_count() == 1, f"the daemon connected {server.connection_count()} times")
        self.check(not server.other, f"unexpected texts at the server: {server.other[:3]}")
        status = stop(daemon)
        self.check(status == 0, f"the daemon exited {status} on SIGTERM")
        counts = stored(self.database)
        self.check(all(counts[m] == 1 for m in everything) and sum(counts.values()) == len(everything),
                   f"after the stop, notifications holds {dict(counts)} (s-0..s-6 once each expected)")

    def poll_until(self, condition, deadline, keep_polling=False):
        """Status every POLL s, each timed, until `condition(state)` holds (returns that state)
        or `deadline` (returns None). A call that failed counts as not holding."""
        while True:
            state = self.status()
            if state is not None and condition(state):
                return state
            if time.monotonic() > deadline:
                return state if keep_polling else None
            time.sleep(POLL)

    def run_clis(self, environment):
        """`intrapush status`, text and JSON, during the stall: quick, exit 0, and they say it."""
        binary = os.path.join(self.binaries, "intrapush")
        user = pwd.getpwnam(self.options.cli_user)
        seconds, code, out, err = run_cli(binary, self.database, environment, user)
        self.figures["cli_text"] = seconds
        said = re.search(r"^Stalled:.*write.*\b(\d+) s\b.*$", out, re.MULTILINE)
        self.figures["cli_said"] = said.group(0) if said else None
        self.check(code == 0 and seconds < ANSWER_LIMIT and said,
                   f"intrapush status: exit {code} after {seconds * 1000:.0f} ms, "
                   f"{'with' if said else 'WITHOUT'} a Stalled: line; stdout {out!r} stderr {err!r}")
        seconds, code, out, err = run_cli(binary, self.database, environment, user, "--json")
        self.figures["cli_json"] = seconds
        try:
            since = json.loads(out).get("commit_running_since")
        except ValueError:
            since = None
        self.check(code == 0 and seconds < ANSWER_LIMIT and since,
                   f"intrapush status --json: exit {code} after {seconds * 1000:.0f} ms, "
                   f"commit_running_since {since!r}; stdout {out!r} stderr {err!r}")

    def check_status_line(self, notifications, stalled_at):
        lines = [(at, text) for at, text in notifications.statuses() if STALLED in text]
        if not self.check(lines, f"no STATUS= line saying the write {STALLED} N s; got {notifications.statuses()[-3:]}"):
            return
        first = lines[0][0] - stalled_at
        self.figures["status_line_after"] = first
        self.figures["status_line_seconds"] = max(int(m.group(1)) for _, text in lines
                                                  if (m := re.search(STALLED + r" (\d+) s", text)))
        self.check(first <= STATUS_LINE_LIMIT,
                   f"the STATUS= line about the stall came {first:.1f} s after it began (limit {STATUS_LINE_LIMIT} s)")

    def logged_stall(self):
        with open(self.daemon_log, "rb") as log:
            return b"commit_stalled" in log.read()


def report(stall):
    f = stall.figures
    ms = lambda seconds: "-" if seconds is None else f"{seconds * 1000:.0f} ms"  # noqa: E731
    said = f["daemon_stalled_for"]
    held = "-" if f.get("held_for") is None else f"{f['held_for']:.1f} s"
    print(f"held {held} (--hold-seconds {stall.options.hold_seconds:g}); the daemon said stalled for "
          f"{'-' if said is None else f'{said:.1f} s'} (Status, last while held), "
          f"{f['status_line_seconds'] if f['status_line_seconds'] is not None else '-'} s (status line, "
          f"first after {'-' if f.get('status_line_after') is None else '%.1f s' % f['status_line_after']})")
    print(f"Status calls: {f['status_calls']}, slowest {ms(f['slowest_status'])}")
    print(f"intrapush status as {stall.options.cli_user}: {ms(f['cli_text'])} (text), "
          f"{ms(f['cli_json'])} (--json); it said: {f['cli_said'] or '-'}")
    print(f"acknowledgements: {f.get('acks', '-')} of 7 pushes")
    for problem in stall.problems:
        print(f"FAILED: {problem}")
    print("passed" if not stall.problems else f"{len(stall.problems)} failed")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binaries", default=os.path.join(ROOT, ".build", "release"))
    parser.add_argument("--hold-seconds", type=float, default=6.0,
                        help="how long fsyncs are held (over 5 s: the log must say commit_stalled)")
    parser.add_argument("--cli-user", default="nobody",
                        help="who runs `intrapush status` (root reads the database itself: see above)")
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    options = parser.parse_args()
    options.binaries = os.path.abspath(options.binaries)
    if options.hold_seconds < STATUS_LINE_LIMIT + 0.5:
        parser.error(f"--hold-seconds must be at least {STATUS_LINE_LIMIT + 0.5}: the status line must have its chance")
    # Short: the local API's socket path (database + ".sock") must fit in 107 bytes.
    workdir = tempfile.mkdtemp(prefix="stall-", dir="/var/tmp")
    os.chmod(workdir, 0o755)  # the CLI's user must reach the local API's socket in it
    print(f"binaries {options.binaries}; work directory {workdir}", flush=True)
    stall = Stall(options, workdir)
    stall.run()
    report(stall)
    if stall.problems or options.keep or mounted_under(workdir):
        print(f"kept {workdir}")
    else:
        shutil.rmtree(workdir, ignore_errors=True)
    return 1 if stall.problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
