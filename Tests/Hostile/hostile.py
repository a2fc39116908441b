#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A hostile and broken peer for intrapushd: a raw WebSocket server on loopback, written by
hand so that it can do what no real server library would (floods of fragments, pings while never
reading, absurd retry hints and ids), and a local user abusing the daemon's Varlink socket (the
local API). The server, the watched daemon and the Varlink messages are in raw_peer.py; the
scenarios are here.

Each scenario starts a fresh release daemon against it, samples the daemon's resident memory
all along, and checks what must hold: the daemon is alive at the end and never restarted, its
peak RSS stays under a ceiling, and the scenario's own outcome. Prints a table and
`N passed, N failed`; exits 1 on any failure. Usage: hostile.py --daemon PATH [--only a,b]
"""
import argparse
import os
import socket
import sqlite3
import struct
import subprocess
import sys
import tempfile
import time

from raw_peer import (FLOOD_SECONDS, RSS_CEILING_MIB, Daemon, RawServer, accept_upgrade, ended, frame, read_frames,
                      read_replies, varlink_call, varlink_connect, varlink_message, wait_seconds)

# --- scenarios: each returns (outcome text, extra figures) or raises AssertionError ----------------

def fragment_flood(binary, directory):
    """A non-final text frame, then endless empty and one-byte continuations, a ping now and then."""
    outcome = {}

    def handler(connection, request):
        accept_upgrade(connection, request)
        connection.sendall(frame(0x1, b'{"id":"f', fin=False))
        deadline = time.monotonic() + FLOOD_SECONDS
        batch = frame(0x0, b"", fin=False) * 500 + frame(0x0, b" ", fin=False) * 500 + frame(0x9, b"p")
        try:
            while time.monotonic() < deadline:
                connection.sendall(batch)
        except OSError:
            outcome["closed"] = True

    server = RawServer(handler)
    daemon = Daemon(binary, server.port, directory)
    try:
        daemon.wait_for(lambda: "fragments" in daemon.text(), FLOOD_SECONDS + 10, "the daemon to end the fragment flood")
        assert "closed with 1009" in daemon.text()
        return daemon, "closed with 1009, saying why", {}
    finally:
        server.close()


def ping_flood_never_reading(binary, directory):
    """Pings as fast as the socket takes them; the server never reads the pongs."""
    def handler(connection, request):
        accept_upgrade(connection, request)
        connection.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        ping = frame(0x9, b"x" * 125) * 64
        deadline = time.monotonic() + 30
        try:
            while time.monotonic() < deadline:
                connection.sendall(ping)
        except OSError:
            pass

    server = RawServer(handler)
    daemon = Daemon(binary, server.port, directory)
    try:
        daemon.wait_for(lambda: "dead peer" in daemon.text(), 25, "the daemon to drop a server that does not read")
        return daemon, "dropped as a dead peer (it stopped reading a server that does not read)", {}
    finally:
        server.close()


def retry_after_zero(binary, directory):
    """A balancer answering 503 with Retry-After: 0 must not turn the backoff off."""
    server = RawServer(lambda connection, request: connection.sendall(
        b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 0\r\nContent-Length: 0\r\n\r\n"))
    daemon = Daemon(binary, server.port, directory)
    try:
        time.sleep(5)  # counting attempts over a fixed window: the figure itself is the outcome
        attempts = server.attempts
        # reconnect_min 200 ms, reconnect_max 1 s: at most about 5 s / 0.5 s mean waits.
        assert attempts <= 25, f"{attempts} attempts in 5 s"
        return daemon, f"{attempts} attempts in 5 s", {"attempts": attempts}
    finally:
        server.close()


def extreme_retry_hints(binary, directory):
    """Retry-After values no integer holds, negative, junk, and dates, on 503 and 429."""
    values = [b"9223372036854775807", b"99999999999999999999999999", b"-1", b"junk", b"1e9",
              b"Fri, 31 Dec 9999 23:59:59 GMT", b"Thu, 01 Jan 1970 00:00:00 GMT"]
    state = {"index": 0}

    def handler(connection, request):
        value = values[state["index"] % len(values)]
        status = b"503 Service Unavailable" if state["index"] % 2 == 0 else b"429 Too Many Requests"
        state["index"] += 1
        connection.sendall(b"HTTP/1.1 " + status + b"\r\nRetry-After: " + value + b"\r\nContent-Length: 0\r\n\r\n")

    server = RawServer(handler)
    # reconnect_max 1 s: the longest hint is capped at 10 s.
    daemon = Daemon(binary, server.port, directory)
    def waits():
        return [line for line in daemon.text().splitlines() if "reconnecting in" in line]

    try:
        daemon.wait_for(lambda: len(waits()) >= 3, 30, "three hinted reconnects")
        seconds = [wait_seconds(line) for line in waits()]
        assert all(wait <= 10 for wait in seconds), f"waits beyond the 10 s cap: {seconds}"
        return daemon, f"alive; {server.attempts} attempts, waits {', '.join(f'{w:g}' for w in seconds)} s (cap 10 s)", {}
    finally:
        server.close()


def extreme_close_hint(binary, directory):
    """After the 101, close 1013 with retry-after=99999999999999999999."""
    def handler(connection, request):
        accept_upgrade(connection, request)
        connection.sendall(frame(0x8, struct.pack("!H", 1013) + b"retry-after=99999999999999999999"))
        read_frames(connection, timeout=2)

    server = RawServer(handler)
    daemon = Daemon(binary, server.port, directory)
    try:
        daemon.wait_for(lambda: "reconnecting in" in daemon.text(), 10, "the hinted reconnect")
        line = next(line for line in daemon.text().splitlines() if "reconnecting in" in line)
        assert wait_seconds(line) <= 10, line
        return daemon, "alive; " + line.split(">", 1)[-1].strip(), {}
    finally:
        server.close()


def extreme_ids(binary, directory):
    """Ids beyond 64 bits that differ only past a double's precision, huge exponents, deep nesting,
    invalid UTF-8: every distinct push stored once, each acknowledged after its commit."""
    pushes = [b'{"id":18446744073709551617,"title":"a"}', b'{"id":18446744073709551618,"title":"b"}',
              b'{"id":9007199254740993}', b'{"id":9007199254740992}', b'{"id":1e999}', b'{"id":-0}',
              b'{"id":"x","deep":' + b"[" * 10000 + b"]" * 10000 + b"}", b'{"id":"\xff\xfe"}',
              b'{"id":' + b"9" * 5000 + b"}"]
    acknowledged = {}

    def handler(connection, request):
        accept_upgrade(connection, request)
        # Once: after the close below the daemon reconnects, and the pushes without a usable id
        # (stored without one, so never matched as duplicates) would be stored again before the
        # count is read.
        if "count" in acknowledged:
            read_frames(connection, timeout=5)
            return
        for push in pushes:
            connection.sendall(frame(0x1 if push != pushes[7] else 0x2, push))
        frames = read_frames(connection, stop_after=lambda got: sum(1 for op, _ in got if op == 0x1 and _ != b"KA") >= len(pushes), timeout=10)
        acknowledged["count"] = sum(1 for op, payload in frames if op == 0x1 and payload != b"KA")
        connection.sendall(frame(0x8, struct.pack("!H", 1000)))
        read_frames(connection, timeout=1)

    server = RawServer(handler)
    daemon = Daemon(binary, server.port, directory)
    try:
        daemon.wait_for(lambda: acknowledged.get("count", 0) >= len(pushes), 15, "every push acknowledged")
        with sqlite3.connect(f"file:{daemon.database}?mode=ro", uri=True) as db:
            ids = [row[0] for row in db.execute("select message_id from notifications order by id")]
        assert "18446744073709551617" in ids and "18446744073709551618" in ids, ids
        assert "9007199254740993" in ids and "9007199254740992" in ids, ids
        assert len(ids) == len(pushes), f"{len(ids)} rows for {len(pushes)} distinct pushes"
        return daemon, f"{len(ids)} distinct pushes stored, each acknowledged", {}
    finally:
        server.close()


# The local API's ceilings with the default max_message_size (1 MiB), as VarlinkLimits works them out.
LONGEST_MESSAGE = max(1 << 20, 6 * 1048576 + 65536)
# Unfinished messages: two of the longest for one person, max(64 MiB, four) for everyone.
MESSAGE_BUDGET = max(64 << 20, 4 * LONGEST_MESSAGE)
# The storm's person is nobody, who has no right: the share of that class.
CONNECTIONS_PER_USER = 4
MALFORMED = [b"{", b"not json", b"[]", b'"a call"', b"{}", b'{"method":1}', b'{"method":""}',
             b'{"method":"io.intrapush.Daemon.Status","parameters":[]}',
             b'{"method":"io.intrapush.Daemon.Status","more":"yes"}', b"[" * 100000, b'{"method":"\xff\xfe"}']
HOLDER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support", "local_api_holder.py")


def error_of(replies):
    """The error name of the last reply; None for an answer, "no reply" when there was none."""
    return replies[-1].get("error") if replies else "no reply"


def answer_of(replies):
    """The parameters of the last reply (an error's too)."""
    return replies[-1].get("parameters") or {} if replies else {}


def padded_call(length):
    """A WhoAmI call of exactly `length` bytes (its NUL not counted), padded in the method's
    name (an unknown parameter would be refused before the length matters)."""
    head, tail = b'{"method":"org.varlink.service.GetInfo","oneway":false', b'}'
    return head + b" " * (length - len(head) - len(tail)) + tail


def refused_stream(path, total, chunk=b"x" * 65536):
    """Writes up to `total` bytes without a NUL; how many went before the daemon closed the
    connection, and its replies."""
    client = varlink_connect(path)
    sent = 0
    try:
        while sent < total:
            client.sendall(chunk)
            sent += len(chunk)
    except OSError:
        pass
    replies = read_replies(client, stop_after=lambda got: True)
    client.close()
    return sent, replies


def half_budget_clients(path, count=24):
    """`count` clients of one person, each writing half of everyone's budget without a NUL, 64 KiB
    in turn. Half of it is more than the longest message too: each one must be closed
    unanswered, those that met the person's full budget before they were past the longest
    message. Returns (closed unanswered, closed by the budget)."""
    chunk = b"x" * 65536
    clients = [varlink_connect(path) for _ in range(count)]
    sent = dict.fromkeys(clients, 0)
    writing = list(clients)
    while writing:
        for client in list(writing):
            try:
                client.sendall(chunk)
                sent[client] += len(chunk)
                if sent[client] >= MESSAGE_BUDGET // 2:
                    writing.remove(client)
            except OSError:
                writing.remove(client)
    unanswered = sum(1 for client in clients if error_of(read_replies(client, stop_after=lambda got: True)) == "no reply"
                     and ended(client))
    by_budget = sum(1 for client in clients if sent[client] < LONGEST_MESSAGE)
    for client in clients:
        client.close()
    return unanswered, by_budget


def connection_storm(daemon, path, count=1000):
    """One unprivileged person opening `count` connections and leaving them idle (as nobody,
    with setpriv, when the hostile peer runs as root), then calling on one more: the answer to
    that call, how many of theirs the daemon still holds, its descriptors and its RSS."""
    command = [sys.executable, HOLDER, path, str(count)]
    if os.geteuid() == 0:
        os.chmod(os.path.dirname(path), 0o711)
        command = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"] + command
    holder = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        answer = holder.stdout.readline().split()[-1]
        held = count
        deadline = time.monotonic() + 10
        while held > CONNECTIONS_PER_USER and time.monotonic() < deadline:
            holder.stdin.write("count\n")
            holder.stdin.flush()
            held = int(holder.stdout.readline().split()[-1])
        descriptors = len(os.listdir(f"/proc/{daemon.process.pid}/fd"))
        return answer, held, descriptors
    finally:
        holder.stdin.close()
        holder.wait(timeout=10)


def local_api_abuse(binary, directory):
    """Anyone on the host, on the daemon's Varlink socket: malformed messages, a 100 MB message
    without its NUL, one just over the longest (and one just at it), 24 clients each writing half
    the shared budget, 10,000 pipelined calls whose replies are not read, a caller claiming another
    uid, absurd Request timeouts, one person's 1,000 connections; then a Send must still be queued."""
    server = RawServer(lambda connection, request: (accept_upgrade(connection, request), read_frames(connection, timeout=60)))
    daemon = Daemon(binary, server.port, directory)
    path = daemon.database + ".sock"
    try:
        daemon.wait_for(lambda: os.path.exists(path), 10, "the local API's socket")

        for message in MALFORMED:
            with varlink_connect(path) as client:
                client.sendall(message + b"\0")
                replies = read_replies(client, stop_after=lambda got: True)
                assert error_of(replies) == "no reply", (message[:60], replies)
                assert ended(client), f"the connection stayed open after {message[:60]!r}"

        sent, replies = refused_stream(path, 100_000_000)
        assert sent < 100_000_000, "the daemon took 100 MB without a NUL"
        assert error_of(replies) == "no reply", replies
        flood = f"100 MB refused after {sent / 2**20:.0f} MiB"

        with varlink_connect(path) as client:
            client.sendall(padded_call(LONGEST_MESSAGE + 1))  # the NUL only once it has been refused
            replies = read_replies(client, stop_after=lambda got: True)
            try:
                client.sendall(b"\0")
            except OSError:
                pass
            assert error_of(replies) == "no reply", replies
            assert ended(client), "the connection stayed open after a message over the longest"
        with varlink_connect(path) as client:  # one of exactly the longest length is answered
            client.sendall(padded_call(LONGEST_MESSAGE) + b"\0")
            replies = read_replies(client, stop_after=lambda got: True)
            assert error_of(replies) is None, replies

        unanswered, by_budget = half_budget_clients(path)
        assert unanswered == 24, f"{unanswered} of 24 half-budget clients closed unanswered"
        assert by_budget > 0, "no client met a full budget with 24 × half of it"
        budget = f"{by_budget} closed by the budget"

        with varlink_connect(path) as client:
            calls = 10000
            rss_before = daemon._status_kib("VmRSS")
            client.settimeout(2)
            written = 0
            try:
                for _ in range(calls):  # the daemon stops reading once its replies wait unread
                    client.sendall(varlink_message("org.varlink.service.GetInfo"))
                    written += 1
            except OSError:
                pass
            grown = (daemon._status_kib("VmRSS") - rss_before) / 1024
            replies = read_replies(client, stop_after=lambda got: len(got) == written, timeout=10)
            assert len(replies) == written and all(error_of([r]) is None for r in replies), (written, len(replies))
            assert grown < 16, f"unread replies grew the daemon by {grown:.1f} MiB"
            pipelined = f"{written} pipelined calls answered in order, +{grown:.1f} MiB while unread"

        claimed = 1000 if os.geteuid() != 1000 else 1001
        replies = varlink_call(path, "io.intrapush.Daemon.WhoAmI", {"uid": claimed, "user": "nobody"})
        assert error_of(replies) == "org.varlink.service.InvalidParameter" and answer_of(replies).get("parameter") == "uid", replies
        replies = varlink_call(path, "io.intrapush.Daemon.WhoAmI")
        assert error_of(replies) is None and answer_of(replies).get("uid") == os.geteuid(), replies

        for timeout in [-1, 0, 10**30, "x", 2**63 - 1, 1.5]:
            replies = varlink_call(path, "io.intrapush.Outbox.Request", {"message": "{}", "timeout_ms": timeout})
            assert error_of(replies) == "org.varlink.service.InvalidParameter", (timeout, replies)
            assert answer_of(replies).get("parameter") == "timeout_ms", (timeout, replies)

        answer, held, descriptors = connection_storm(daemon, path)
        assert answer == "io.intrapush.Notifications.Busy", f"one person's next connection: {answer}"
        assert held <= CONNECTIONS_PER_USER, f"{held} of one person's 1,000 connections kept"
        assert descriptors < 200, f"{descriptors} descriptors"

        replies = varlink_call(path, "io.intrapush.Outbox.Send", {"message": '{"id":"after-the-abuse"}'})
        assert error_of(replies) is None and answer_of(replies).get("message_id") == "after-the-abuse", replies
        return daemon, (f"a Send queued after; {flood}; 24 half-budget clients: {budget}; {pipelined}; one person's "
                        f"1,000 connections: {held} kept, the next told Busy, {descriptors} descriptors"), {}
    finally:
        server.close()


# --- cases the issue did not list ------------------------------------------------------------------

def endless_upgrade_head(binary, directory):
    """101, then header lines without end: the head must be refused, not kept."""
    def handler(connection, request):
        connection.sendall(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n")
        line = b"X-Pad: " + b"a" * 1000 + b"\r\n"
        deadline = time.monotonic() + FLOOD_SECONDS
        while time.monotonic() < deadline:
            connection.sendall(line * 64)

    server = RawServer(handler)
    daemon = Daemon(binary, server.port, directory)
    try:
        daemon.wait_for(lambda: "reconnecting in" in daemon.text(), FLOOD_SECONDS + 10, "the endless head to be refused")
        lines = daemon.text().splitlines()
        said = lines[max(0, next(i for i, line in enumerate(lines) if "reconnecting in" in line) - 1)]
        assert "longer than the 80 KiB" in said, said
        return daemon, "refused: " + said.split(">", 1)[-1].strip()[:100], {}
    finally:
        server.close()


def endless_refusal_body(binary, directory):
    """503 with a body that never ends (declared 10 GB, then sent as fast as it is read)."""
    def handler(connection, request):
        connection.sendall(b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 10000000000\r\n\r\n")
        chunk = b"z" * 65536
        deadline = time.monotonic() + FLOOD_SECONDS
        while time.monotonic() < deadline:
            connection.sendall(chunk)

    server = RawServer(handler)
    daemon = Daemon(binary, server.port, directory)
    try:
        daemon.wait_for(lambda: "reconnecting in" in daemon.text(), FLOOD_SECONDS + 10, "the refusal to be taken")
        lines = daemon.text().splitlines()
        said = lines[max(0, next(i for i, line in enumerate(lines) if "reconnecting in" in line) - 1)]
        return daemon, "body not read: " + said.split(">", 1)[-1].strip()[:100], {}
    finally:
        server.close()


def absurd_frame_headers(binary, directory):
    """A frame declaring 2^63-1 bytes; then, on the next connections, reserved bits, an unknown
    opcode, a masked server frame and a 126-byte ping: each closes that connection, none more."""
    bad = [frame(0x1)[:1] + bytes([127]) + struct.pack("!Q", 2**63 - 1) + b"x" * 1000,
           bytes([0xC1, 0x02]) + b"{}",           # RSV1 without an extension
           bytes([0x83, 0x00]),                   # opcode 3 is reserved
           bytes([0x81, 0x82]) + b"abcd" + b"AA",  # servers must not mask
           bytes([0x89, 0x7E, 0x00, 0x7E]) + b"p" * 126]  # control frames are at most 125 bytes
    state = {"index": 0}

    def handler(connection, request):
        accept_upgrade(connection, request)
        index = state["index"]
        state["index"] += 1
        if index < len(bad):
            connection.sendall(bad[index])
        else:  # a well-behaved server at last: the daemon must still work
            connection.sendall(frame(0x1, b'{"id":"after-the-bad-frames"}'))
        read_frames(connection, timeout=3)

    server = RawServer(handler)
    daemon = Daemon(binary, server.port, directory)
    try:
        def stored():
            try:
                with sqlite3.connect(f"file:{daemon.database}?mode=ro", uri=True) as db:
                    return db.execute("select count(*) from notifications where message_id = 'after-the-bad-frames'").fetchone()[0] == 1
            except sqlite3.Error:
                return False
        daemon.wait_for(stored, 40, "the push after the bad frames to be stored")
        return daemon, f"each bad frame closed its connection; the push after them stored ({server.attempts} connections)", {}
    finally:
        server.close()


def slow_upgrade_answer(binary, directory):
    """The 101 sent one byte a second: connect_timeout (2 s here) ends the attempt."""
    answers = {"bytes": 0}

    def handler(connection, request):
        for byte in b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n":
            connection.sendall(bytes([byte]))
            answers["bytes"] += 1
            time.sleep(1)

    server = RawServer(handler)
    daemon = Daemon(binary, server.port, directory)
    try:
        daemon.wait_for(lambda: "reconnecting in" in daemon.text(), 15, "the slow answer to time out")
        assert answers["bytes"] < 8, f"the daemon waited for {answers['bytes']} bytes, one a second"
        return daemon, f"gave up after {answers['bytes']} bytes", {}
    finally:
        server.close()


SCENARIOS = [fragment_flood, ping_flood_never_reading, retry_after_zero, extreme_retry_hints,
             extreme_close_hint, extreme_ids, local_api_abuse,
             endless_upgrade_head, endless_refusal_body, absurd_frame_headers, slow_upgrade_answer]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--daemon", required=True)
    parser.add_argument("--only", default="")
    arguments = parser.parse_args()
    for variable in ("http_proxy", "https_proxy", "no_proxy", "HTTP_PROXY", "HTTPS_PROXY"):
        os.environ.pop(variable, None)
    chosen = [s for s in SCENARIOS if not arguments.only or s.__name__ in arguments.only.split(",")]
    passed = failed = 0
    print(f"{'scenario':28} {'result':6} {'peak RSS':>9}  outcome")
    for scenario in chosen:
        with tempfile.TemporaryDirectory(prefix="intrapush-hostile-") as directory:
            daemon = Daemon.latest = None
            started = time.monotonic()
            try:
                daemon, outcome, _ = scenario(arguments.daemon, directory)
                assert daemon.alive, "the daemon died:\n" + daemon.text()[-2000:]
                assert daemon.peak_mib < RSS_CEILING_MIB, f"peak RSS {daemon.peak_mib:.0f} MiB"
                result = "ok"
                passed += 1
            except (AssertionError, TimeoutError, StopIteration, ValueError, OSError) as error:
                outcome = str(error).splitlines()[0] if str(error) else type(error).__name__
                result = "FAIL"
                failed += 1
                daemon = daemon or Daemon.latest
                if daemon is not None and not daemon.alive:
                    outcome += f" (the daemon exited with {daemon.process.returncode})"
            peak = f"{daemon.peak_mib:.1f} MiB" if daemon else "-"
            print(f"{scenario.__name__:28} {result:6} {peak:>9}  {outcome} ({time.monotonic() - started:.1f} s)", flush=True)
            if daemon:
                daemon.stop()
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
