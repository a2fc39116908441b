#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The interop matrix: the real intrapushd against server stacks we did not write.

Usage: interop.py --daemon PATH [--only NAME[,NAME…]]

Each row starts one stack's server program (servers/, see README.md), optionally behind nginx or
HAProxy terminating wss with a private CA, runs the daemon against it, and checks what the server
saw and what the daemon committed. Then the conformance checker (Tests/ServerConformance) runs
against each server program in its check mode. Prints one line per row, then 'N passed, N failed'.
"""
import argparse
import contextlib
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import interop_conformance as conformance
import interop_support as support

sys.path.insert(0, str(support.SERVERS))
from scenario import FRAGMENTED  # noqa: E402  (the same text every server sends)

PUSHES = 200
TOKEN = "good-token"
SUBPROTOCOL = "intrapush.v1"
HELLO = '{"type":"hello","token":"{token}"}'
EXPECTED_ORDER = ["frag"] + [f"p{i}" for i in range(1, PUSHES + 1)]
RECONNECT_MAX = 1.0


class Row:
    def __init__(self, stack, daemon, work, front=None, certificates=None, extra_lines=()):
        self.stack, self.daemon, self.work, self.front, self.certificates = stack, daemon, Path(work), front, certificates
        self.extra_lines = list(extra_lines)  # more configuration lines for every daemon of the row
        self.environment = {}  # more environment for every daemon of the row
        self.database = self.work / "notifications.sqlite3"
        self.label = f"{stack.name} {stack.version}"
        self.early_acks = []  # acknowledgements the server held before the row was committed
        self.commit_check = None  # the driver's own read-only connection

    def check_committed(self, event):
        """Runs on the reader thread as each ack arrives: its push must already be in the database."""
        if event["event"] != "ack":
            return
        if self.commit_check is None:
            self.commit_check = sqlite3.connect(f"file:{self.database}?mode=ro", uri=True, check_same_thread=False)
        found = self.commit_check.execute(
            "SELECT 1 FROM notifications WHERE message_id = ?1 UNION ALL "
            "SELECT 1 FROM outbox WHERE message_id = ?1 AND state = 'replied'", (event["id"],)).fetchone()
        if not found:
            self.early_acks.append(event["id"])

    @property
    def canonical(self):
        """spec_server.py speaks the canonical profile; the library stacks the matrix's templates."""
        return self.stack.name == "spec"

    def start_server(self):
        port = support.free_port()
        env = dict(os.environ, INTEROP_PORT=str(port), INTEROP_PATH=f"/connect/linux/acme/{TOKEN}",
                   INTEROP_PUSHES=str(PUSHES), INTEROP_SUBPROTOCOL=SUBPROTOCOL,
                   INTEROP_HELLO=HELLO.replace("{token}", TOKEN), **self.stack.env)
        stderr = open(self.work / "server.log", "w")
        server = subprocess.Popen(self.stack.argv, env=env, stdout=subprocess.PIPE, stderr=stderr, text=True)
        self.processes = [server]  # stopped by the caller, even when it never listens
        support.wait_for_port(port, server)
        self.events = support.EventLog(server.stdout, self.check_committed)
        if not self.front:
            return f"127.0.0.1:{port}"
        front_port = support.free_port()
        name, argv = self.front(self.work, front_port, port, self.certificates)
        self.label += f" behind {name} (wss)"
        proxy = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=open(self.work / "proxy.log", "w"))
        self.processes.append(proxy)
        support.wait_for_port(front_port, proxy)
        return f"localhost:{front_port}"

    def start_daemon(self, address, token=TOKEN, subprotocol=SUBPROTOCOL, name="daemon", extra_lines=None, environment=None):
        lines = [f'host = "{address}"', 'org = "acme"', f'token = "{token}"', f'database = "{self.database}"',
                 *([] if self.canonical else ['ack_text = "ack {id}"']), 'heartbeat_interval = "1s"', 'reconnect_min = "100ms"',
                 f'reconnect_max = "{RECONNECT_MAX}s"', 'headers = ["X-Interop: interop {token}"]',
                 f'subprotocol = "{subprotocol}"', f"hello_text = '{HELLO}'", 'log_level = "debug"']
        if self.front:
            lines += ["tls = true", f'ca_file = "{self.certificates[0]}"']
        lines += self.extra_lines if extra_lines is None else extra_lines
        config = self.work / f"{name}.conf"
        config.write_text("\n".join(lines) + "\n")
        env = support.daemon_environment(os.environ.get("HOME", "/"), os.environ)
        env.update(self.environment if environment is None else environment)
        return support.start_daemon(self.daemon, config, env, stderr=open(self.work / f"{name}.log", "w"))

    def await_status(self, what, condition, daemon, timeout=15):
        """Polls `intrapush status --json` until `condition` holds, the daemon alive throughout
        (the status lives in the database and the daemon's memory; nothing to await). Returns it."""
        deadline = time.monotonic() + timeout
        while not condition(status := self.status()):
            assert daemon.poll() is None, f"{what}: the daemon exited with {daemon.returncode}"
            assert time.monotonic() < deadline, f"{what}: not within {timeout} s; last error {status.get('last_error')!r}"
            time.sleep(0.1)
        return status

    def status(self):
        cli = Path(self.daemon).with_name("intrapush")
        out = subprocess.run([cli, "status", "--json", "--database", str(self.database)],
                             capture_output=True, text=True)
        return json.loads(out.stdout) if out.stdout.strip() else {}

    def run(self):
        started = time.monotonic()
        self.processes = []
        try:
            address = self.start_server()
            details = self.deliver(address)
            details += self.rejected_token(address)
        finally:
            for process in reversed(self.processes):
                support.stop(process)
            if hasattr(self, "events"):  # what the server saw, for a failure's post-mortem
                (self.work / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in self.events.events))
        return f"{self.label}: {details}, {time.monotonic() - started:.1f} s"

    def deliver(self, address):
        daemon = self.start_daemon(address)
        try:
            self.events.wait(lambda log: log.of("complete"), 30, "every push acknowledged")
            idle = self.messages() if self.canonical else ""
            if self.front:
                # Longer than the proxy's idle timeout: only heartbeats and pongs keep the tunnel open.
                wait = 2.5 * support.PROXY_IDLE_TIMEOUT_MS / 1000
                time.sleep(wait)  # the claim is that nothing happens for this long
                opens = len(self.events.of("open"))
                assert opens == 2, f"the connection was dropped while idle behind the proxy ({opens} connections)"
                idle = f", idle {wait:.2f} s > proxy timeout kept open"
        finally:
            status = support.stop(daemon)
        assert status == 0, f"the daemon exited with {status} on SIGTERM"
        return self.check_delivery() + idle

    def messages(self):
        """spec_server.py takes messages and answers requests: a message sent and a request made
        through the CLI reach it, are acknowledged (delivered), and the reply comes back."""
        cli = str(Path(self.daemon).with_name("intrapush"))
        database = ["--database", str(self.database)]
        sent = subprocess.run([cli, "send", *database, '{"id":"interop-m1","type":"note"}'], capture_output=True, text=True)
        assert sent.returncode == 0, f"intrapush send: {sent.stderr}"
        reply = subprocess.run([cli, "request", *database, "--timeout", "15s", '{"id":"interop-r1","type":"request"}'],
                               capture_output=True, text=True)
        assert reply.returncode == 0, f"intrapush request exited with {reply.returncode}: {reply.stderr}"
        answer = json.loads(reply.stdout)
        assert answer.get("reply", {}).get("echo", {}).get("id") == "interop-r1", f"the reply was {reply.stdout!r}"
        self.events.wait(lambda log: {"interop-m1", "interop-r1"} <= {e["id"] for e in log.of("taken")}, 10,
                         "the message and the request taken")
        with sqlite3.connect(f"file:{self.database}?mode=ro", uri=True) as db:
            states = dict(db.execute("SELECT message_id, state FROM outbox").fetchall())
        deadline = time.monotonic() + 10
        while states.get("interop-m1") != "delivered" and time.monotonic() < deadline:
            time.sleep(0.05)  # the record of the server's acknowledgement follows it; nothing to await
            with sqlite3.connect(f"file:{self.database}?mode=ro", uri=True) as db:
                states = dict(db.execute("SELECT message_id, state FROM outbox").fetchall())
        assert states == {"interop-m1": "delivered", "interop-r1": "replied"}, f"the outbox reads {states}"
        return "; a message taken and acknowledged, a request answered"

    def check_delivery(self):
        opens = self.events.of("open")
        for event in opens:
            assert event["content_length"] is None and event["transfer_encoding"] is None, \
                f"the handshake announced a body: {event}"
            assert event["protocol"] == SUBPROTOCOL, f"Sec-WebSocket-Protocol was {event['protocol']!r}"
            assert event["x_interop"] == f"interop {TOKEN}", f"X-Interop was {event['x_interop']!r}"
        hello = HELLO.replace("{token}", TOKEN)
        acknowledged = set()  # on the connections before
        for event in opens:
            n = event["connection"]
            frames = [e for e in self.events.events if e.get("connection") == n and e["event"] in ("text", "ack")]
            assert frames and frames[0].get("text") == hello, f"connection {n}: the first frame was {frames[:1]}"
            acks = [e["id"] for e in self.events.of("ack", n) if e["id"] in EXPECTED_ORDER]  # replies aside
            # The server sends, in order, what it did not hold acknowledged when the connection
            # opened. Its threads may still be reading the last connection's acknowledgements
            # then (they were sent before the daemon's close), so the redelivery starts at most
            # there, and at least at the first id never acknowledged.
            start = EXPECTED_ORDER.index(acks[0]) if acks else 0
            assert acks == EXPECTED_ORDER[start:start + len(acks)], \
                f"connection {n}: acknowledgements out of order: {acks[:5]}…"
            skipped = [ident for ident in EXPECTED_ORDER[:start] if ident not in acknowledged]
            assert not skipped, f"connection {n}: acknowledgements began at {acks[0]}, and {skipped[:5]} were never acknowledged before it"
            pongs = [e["payload"] for e in self.events.of("pong", n)]
            assert f"ping-{n}" in pongs, f"connection {n}: no pong with the ping's payload (got {pongs})"
            if n == 1:
                assert len(acks) >= PUSHES // 2 + 1, f"connection 1: only {len(acks)} acknowledgements"
                assert self.events.of("closing", 1), "the server did not close connection 1 with 1001"
            acknowledged.update(acks)
        never = [ident for ident in EXPECTED_ORDER if ident not in acknowledged]
        assert not never, f"never acknowledged: {never[:5]}"
        assert not self.early_acks, f"acknowledged before committed: {self.early_acks[:5]}"
        with sqlite3.connect(f"file:{self.database}?mode=ro", uri=True) as db:
            rows = db.execute("SELECT message_id, payload FROM notifications ORDER BY id").fetchall()
        assert [r[0] for r in rows] == EXPECTED_ORDER, f"stored {len(rows)} rows, not frag + p1…p{PUSHES} in order"
        assert rows[0][1] == FRAGMENTED, "the fragmented message was not stored whole"
        redelivered = len(self.events.of("ack", 2))
        return (f"{PUSHES}/{PUSHES} stored and acknowledged in order, none early; fragmented message whole; "
                f"pings answered; 1001 → reconnected, {redelivered} redelivered; hello first; headers and "
                f"subprotocol seen")

    def rejected_token(self, address):
        before = len(self.events.of("rejected"))
        daemon = self.start_daemon(address, token="wrong-token", name="rejected")
        try:
            self.events.wait(lambda log: len(log.of("rejected")) >= before + 3, 15, "three rejected attempts")
            # Between attempts the status reads "rejected"; during one, "connecting".
            deadline = time.monotonic() + 5
            while (status := self.status()).get("state") != "rejected" and time.monotonic() < deadline:
                time.sleep(0.05)  # the status lives in the database; nothing to await
        finally:
            support.stop(daemon)
        times = [e["t"] for e in self.events.of("rejected")[before:before + 3]]
        gaps = [b - a for a, b in zip(times, times[1:])]
        assert min(gaps) >= RECONNECT_MAX - 0.01, f"a rejected token was retried after {min(gaps):.3f} s"
        assert status.get("state") == "rejected" and "401" in (status.get("last_error") or ""), \
            f"status does not report the rejection: {status.get('state')}, {status.get('last_error')}"
        return f"; 401 reported as rejected, retried every {min(gaps):.2f}–{max(gaps):.2f} s"


def subprotocol_refused(stack, daemon, work):
    """A server that does not select the subprotocol asked for fails the attempt, with a clear reason."""
    row = Row(stack, daemon, work)
    row.processes = []
    try:
        address = row.start_server()
        refused = row.start_daemon(address, subprotocol="other.v9", name="subprotocol")
        row.processes.append(refused)
        status = row.await_status("the subprotocol failure", lambda s: "did not select" in (s.get("last_error") or ""), refused)
        assert not row.events.of("ack"), "pushes were taken over a connection without the subprotocol"
        return f"{row.label}: a subprotocol the server does not select fails the attempt ({status['last_error']})"
    finally:
        for process in reversed(row.processes):  # the daemon first, then the proxy and the server
            support.stop(process)


def client_certificate(stack, daemon, work, certificates):
    """nginx with ssl_verify_client on: without a certificate, or with a stranger's, the daemon is
    refused, stays alive and says why; with one from the CA nginx trusts, every push arrives."""
    pki = Path(certificates[0]).parent
    def identity(name):
        return [f'tls_cert_file = "{pki / (name + ".pem")}"', f'tls_key_file = "{pki / (name + ".key")}"']
    row = Row(stack, daemon, work, support.nginx_mtls_front, certificates, extra_lines=identity("client"))
    row.processes = []
    refusals = []
    try:
        address = row.start_server()
        for name, lines, expected in [("none", [], "requires a client certificate"),
                                      ("stranger", identity("stranger"), "refused the client certificate")]:
            refused = row.start_daemon(address, name=f"mtls-{name}", extra_lines=lines)
            try:
                status = row.await_status(f"{name}: the explanation", lambda s: expected in (s.get("last_error") or ""), refused)
                assert not row.events.of("open"), f"{name}: the server let a connection through"
                refusals.append(f"{name}: {status['last_error']!r}")
            finally:
                support.stop(refused)
        details = row.deliver(address)
        return f"{row.label}: {details}; " + "; ".join(refusals)
    finally:
        for process in reversed(row.processes):
            support.stop(process)


def proxied(stack, daemon, work, certificates):
    """Through Debian's tinyproxy (https_proxy, Basic credentials, CONNECT, wss inside the tunnel):
    every push arrives and the proxy logged the tunnel; no_proxy bypasses it; a 407 and an
    unreachable proxy are explained, never with the password."""
    row = Row(stack, daemon, work, support.nginx_front, certificates)
    row.processes = []
    password = "pr0xy-s3cret"
    try:
        address = row.start_server()
        port = support.free_port()
        label, argv, log = support.tinyproxy(work, port, credentials=("intrapush", password))
        proxy = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=open(Path(work) / "tinyproxy.err", "w"))
        row.processes.append(proxy)
        support.wait_for_port(port, proxy)
        row.label += f" through {label}"
        # First the delivery: the server's log of connections must hold only the tunnelled ones.
        tunnels_before = log.read_text().count("CONNECT") if log.exists() else 0
        row.environment = {"https_proxy": f"http://intrapush:{password}@127.0.0.1:{port}", "no_proxy": "example.org"}
        details = row.deliver(address)
        tunnels = log.read_text().count("CONNECT") - tunnels_before
        assert tunnels >= 2, f"the proxy saw {tunnels} CONNECT requests for two connections"
        problems = []
        for name, environment, expected in [
            ("no credentials", {"https_proxy": f"http://127.0.0.1:{port}"}, "requires credentials (HTTP 407)"),
            ("wrong password", {"https_proxy": f"http://intrapush:wrong@127.0.0.1:{port}"}, "refused the credentials (HTTP 401)"),  # tinyproxy's answer
            ("unreachable", {"https_proxy": f"http://intrapush:{password}@127.0.0.1:{support.free_port()}"}, "cannot reach the proxy"),
        ]:
            refused = row.start_daemon(address, name=f"proxy-{name.replace(' ', '-')}", environment=environment)
            try:
                status = row.await_status(f"{name}: the explanation", lambda s: expected in (s.get("last_error") or ""), refused)
                problems.append(f"{name}: {status['last_error']!r}")
            finally:
                support.stop(refused)
        # no_proxy names the server: straight there, though the proxy variable points nowhere.
        bypass = row.start_daemon(address, name="no-proxy", environment={
            "https_proxy": f"http://127.0.0.1:{support.free_port()}", "no_proxy": "example.org,localhost"})
        try:
            row.await_status("no_proxy: connected", lambda s: s.get("state") == "connected", bypass)
        finally:
            support.stop(bypass)
        for path in Path(work).glob("*.log"):
            if path != log:
                assert password not in path.read_text(), f"the proxy password is in {path.name}"
        assert password not in json.dumps(row.status()), "the proxy password is in the status"
        return f"{row.label}: {details}, {tunnels} tunnels in the proxy's log; no_proxy bypasses it; " + "; ".join(problems)
    finally:
        for process in reversed(row.processes):
            support.stop(process)


def failover(stack, daemon, work):
    """Two servers of the same stack, the first the primary: it is killed mid-burst, the daemon
    moves to the second (which sends the same pushes again), the primary comes back and the daemon
    returns to it within failback_interval, make-before-break. Every push stored once, in order,
    none acknowledged before its commit on any server, acknowledgements in order per connection."""
    work = Path(work)
    database = work / "notifications.sqlite3"
    servers = {}

    def start(name, port):
        row = Row(stack, daemon, work / name)
        (work / name).mkdir(exist_ok=True)
        row.database = database
        env = dict(os.environ, INTEROP_PORT=str(port), INTEROP_PATH=f"/connect/linux/acme/{TOKEN}",
                   INTEROP_PUSHES=str(PUSHES), INTEROP_SUBPROTOCOL=SUBPROTOCOL, **stack.env)
        process = subprocess.Popen(stack.argv, env=env, stdout=subprocess.PIPE,
                                   stderr=open(work / name / "server.log", "w"), text=True)
        support.wait_for_port(port, process)
        row.events = support.EventLog(process.stdout, row.check_committed)
        servers[name] = (row, process)
        return row

    primary_port, fallback_port = support.free_port(), support.free_port()
    primary = start("primary", primary_port)
    fallback = start("fallback", fallback_port)
    lines = [f'host = ["127.0.0.1:{primary_port}", "127.0.0.1:{fallback_port}"]', 'failback_interval = "2s"',
             'org = "acme"', f'token = "{TOKEN}"', f'database = "{database}"', 'ack_text = "ack {id}"',
             'heartbeat_interval = "1s"', 'reconnect_min = "100ms"', f'reconnect_max = "{RECONNECT_MAX}s"',
             f'subprotocol = "{SUBPROTOCOL}"', f"hello_text = '{HELLO}'", 'log_level = "debug"']
    (work / "daemon.conf").write_text("\n".join(lines) + "\n")
    intrapushd = support.start_daemon(daemon, work / "daemon.conf", support.daemon_environment(os.environ.get("HOME", "/"), os.environ),
                                      stderr=open(work / "daemon.log", "w"))
    try:
        primary.events.wait(lambda log: len(log.of("ack")) >= 40, 30, "the primary's first acknowledgements")
        servers["primary"][1].kill()
        servers["primary"][1].wait()
        killed = time.monotonic()
        stored_before = set(stored_ids(database))
        fallback.events.wait(lambda log: log.of("open"), 15, "the daemon on the fallback")
        deadline = time.monotonic() + 15
        while not (set(stored_ids(database)) - stored_before) and time.monotonic() < deadline:
            time.sleep(0.005)  # the first new row is the event; nothing to await but the file
        failover_s = time.monotonic() - killed
        fallback.events.wait(lambda log: log.of("complete"), 30, "every push acknowledged by the fallback")
        restarted = start("primary2", primary_port)
        back = time.monotonic()
        restarted.events.wait(lambda log: log.of("open"), 10, "the failback to the primary")
        failback_s = time.monotonic() - back
        restarted.events.wait(lambda log: log.of("complete"), 30, "every push acknowledged by the returned primary")
        ids = stored_ids(database)
        assert ids == EXPECTED_ORDER, f"stored {len(ids)} rows, not frag + p1…p{PUSHES} once each in order"
        for name, (row, _) in servers.items():
            assert not row.early_acks, f"{name}: acknowledged before committed: {row.early_acks[:5]}"
            for event in row.events.of("open"):
                acks = [e["id"] for e in row.events.of("ack", event["connection"])]
                order = [i for i in EXPECTED_ORDER if i in set(acks)]
                assert acks == order, f"{name} connection {event['connection']}: acknowledgements out of order"
        log = (work / "daemon.log").read_text()
        assert "closed the connection to the fallback" in log, "the fallback's connection was not closed after the failback"
        return (f"{stack.name} {stack.version} ×2: primary killed mid-burst → first new push stored from the fallback "
                f"in {failover_s * 1000:.0f} ms; primary back → reconnected to it in {failback_s:.2f} s "
                f"(failback_interval 2 s); {PUSHES + 1} stored once each, in order, none acknowledged early")
    finally:
        support.stop(intrapushd)
        for _, process in servers.values():
            support.stop(process)


def stored_ids(database):
    if not database.exists():
        return []
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as db:
        return [row[0] for row in db.execute("SELECT message_id FROM notifications ORDER BY id")]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--daemon", required=True)
    parser.add_argument("--only", help="comma-separated stack names")
    args = parser.parse_args()
    daemon = str(Path(args.daemon).resolve())
    started = time.monotonic()
    wanted = set(args.only.split(",")) if args.only else set(support.STACKS)
    stacks = {name: make() for name, make in support.STACKS.items() if name in wanted}
    # INTEROP_KEEP=1 keeps every row's directory (logs, database, the server's events).
    keep = os.environ.get("INTEROP_KEEP") == "1"
    directory = (contextlib.nullcontext(tempfile.mkdtemp(prefix="intrapush-interop-")) if keep
                 else tempfile.TemporaryDirectory(prefix="intrapush-interop-"))
    with directory as top:
        certificates = support.make_certificates(top)
        rows = [(name, lambda work, s=stack: Row(s, daemon, work).run()) for name, stack in stacks.items()]
        if "websockets" in stacks:
            rows.append(("websockets", lambda work: Row(stacks["websockets"], daemon, work, support.nginx_front,
                                                        certificates).run()))
        if "gorilla" in stacks:
            rows.append(("gorilla", lambda work: Row(stacks["gorilla"], daemon, work, support.haproxy_front,
                                                     certificates).run()))
        if "websockets" in stacks:
            rows.append(("websockets", lambda work: subprotocol_refused(stacks["websockets"], daemon, work)))
            rows.append(("websockets", lambda work: client_certificate(stacks["websockets"], daemon, work, certificates)))
            rows.append(("websockets", lambda work: proxied(stacks["websockets"], daemon, work, certificates)))
            rows.append(("websockets", lambda work: failover(stacks["websockets"], daemon, work)))
        # The conformance checker against each server program in its check mode; the reports side
        # by side go to .build/interop/conformance.md (docs/protocol.md's Appendix C).
        reports = []

        def conformance_row(stack):
            def row(work):
                report, line = conformance.check(stack, work, TOKEN, HELLO, SUBPROTOCOL)
                reports.append(report)
                return line
            return row
        rows += [(name, conformance_row(stack)) for name, stack in stacks.items()]
        passed = failed = 0
        for index, (name, row) in enumerate(rows):
            work = Path(top) / f"row{index}"
            work.mkdir()
            try:
                print(f"PASS {row(work)}", flush=True)
                passed += 1
            except Exception as error:  # one failing stack must not hide the others
                print(f"FAIL {name}: {error}" + (f" (logs: {work})" if keep else " (INTEROP_KEEP=1 keeps the logs)"), flush=True)
                for log in sorted(work.glob("*.log")):
                    print(f"--- {log.name}\n{log.read_text()[-3000:]}", flush=True)
                failed += 1
    if reports:
        support.CACHE.mkdir(parents=True, exist_ok=True)
        (support.CACHE / "conformance.md").write_text(conformance.matrix(reports))
        (support.CACHE / "conformance.json").write_text(json.dumps(reports, indent=2))
        print(f"conformance reports: {support.CACHE / 'conformance.md'}")
    print(f"interop matrix: {time.monotonic() - started:.0f} s")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
