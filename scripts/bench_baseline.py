# SPDX-License-Identifier: Apache-2.0
"""What the daemon's figures are held against, measured in the same run: the same rows committed
by SQLite alone (one per transaction for latency, in batches for ingest), into a copy of the
daemon's own schema on the same filesystem, and a server in a few lines of Python on a raw
socket (the devserver is Swift and NIO like the daemon: a second, unrelated peer times the same
round trip).
"""
import os, select, shutil, socket, sqlite3, sys, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "Tests", "support"))
from websocket_server import frame, unmasked_frame, upgrade_answer  # noqa: E402
# The daemon's statement (IntrapushStore/NotificationStore.swift) for a push without priority, link
# or recipients (those columns stay NULL, as they do here: releases before them lack the columns).
INSERT = "INSERT INTO notifications (message_id, received_at, payload, title, body) VALUES (?, ?, ?, ?, ?)"


def generated_push(prefix, number, size):
    """The devserver's generated push (IntrapushDevServer/Queue/BurstGenerator.swift): id, title, body."""
    head = f'{{"id":"{prefix}{number}","title":"Burst {number}","body":"'
    return head + "x" * max(0, size - len(head) - 2) + '"}'


def row_of(prefix, number, size, received_at):
    """The row the daemon stores for that push."""
    payload = generated_push(prefix, number, size)
    body = payload[payload.index('"body":"') + len('"body":"'):-2]
    return (f"{prefix}{number}", received_at, payload, f"Burst {number}", body)


def open_copy(template, directory):
    """A copy of the daemon's migrated, empty database, as the daemon opens it (WAL, FULL)."""
    path = os.path.join(directory, "bare.sqlite3")
    shutil.copyfile(template, path)
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA synchronous=FULL")
    return connection


def bare_commit_latencies(template, directory, count, rate, size=300, from_slot=None):
    """Milliseconds per commit of one push's row, paced at `rate`/s: what the disk allows a
    durable acknowledgement at best. With a list as `from_slot`, each commit's time is also put
    there with the time the one before it overran its slot added: the wait that a push arriving
    during a commit has too."""
    connection = open_copy(template, directory)
    samples = []
    next_slot = previous_finished = time.perf_counter()
    for number in range(count):
        next_slot += 1 / rate
        delay = next_slot - time.perf_counter()
        if delay > 0:
            time.sleep(delay)
        row = row_of("bare-", number, size, int(time.time() * 1000))
        started = time.perf_counter()
        connection.execute("BEGIN")
        connection.execute(INSERT, row)
        connection.execute("COMMIT")
        finished = time.perf_counter()
        samples.append((finished - started) * 1000)
        if from_slot is not None:  # the commit, and the overrun of the one before (not sleep's lateness)
            from_slot.append((finished - started + max(0.0, previous_finished - next_slot)) * 1000)
        previous_finished = finished
    connection.close()
    return sorted(samples)


def bare_batched_rate(template, directory, count, batch, size=300):
    """Rows per second inserting the burst's rows in transactions of `batch`, from prepared rows."""
    connection = open_copy(template, directory)
    now = int(time.time() * 1000)
    rows = [row_of("bare-", number, size, now) for number in range(count)]
    started = time.perf_counter()
    for first in range(0, count, batch):
        connection.execute("BEGIN")
        connection.executemany(INSERT, rows[first:first + batch])
        connection.execute("COMMIT")
    seconds = time.perf_counter() - started
    connection.close()
    return count / seconds


class RawSteadyServer:
    """Accepts the daemon's one connection on loopback, then sends pushes at a steady pace on the
    caller's thread and times each from right before its send to reading its acknowledgement."""

    def __init__(self, ack_text=b"received message", heartbeat=b"KA"):
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(4)
        self.port = self.listener.getsockname()[1]
        self.ack_text, self.heartbeat = ack_text, heartbeat
        self.connection = None
        self.buffer = b""

    def accept(self, timeout=20):
        self.listener.settimeout(timeout)
        self.connection, _ = self.listener.accept()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        request = b""
        while b"\r\n\r\n" not in request:
            chunk = self.connection.recv(4096)
            if not chunk:
                raise OSError("the daemon closed before its upgrade request ended")
            request += chunk
        self.connection.sendall(upgrade_answer(request))

    def steady(self, count, rate, size=300, prefix="raw-", timeout=30):
        """Latencies in µs, in send order."""
        frames = [frame(1, generated_push(prefix, number, size).encode()) for number in range(count)]
        sent_at, latencies = [], []
        next_slot = time.perf_counter()
        for payload in frames:
            next_slot += 1 / rate
            while (remaining := next_slot - time.perf_counter()) > 0:
                self.read_acks(sent_at, latencies, remaining)
            sent_at.append(time.perf_counter_ns())
            self.connection.sendall(payload)
        deadline = time.monotonic() + timeout
        while len(latencies) < count:
            if time.monotonic() > deadline:
                raise OSError(f"{count - len(latencies)} pushes were never acknowledged")
            self.read_acks(sent_at, latencies, 1)
        return latencies

    def read_acks(self, sent_at, latencies, wait):
        if not select.select([self.connection], [], [], wait)[0]:
            return
        chunk = self.connection.recv(65536)
        now = time.perf_counter_ns()
        if not chunk:
            raise OSError("the daemon closed the connection")
        self.buffer += chunk
        while (parsed := unmasked_frame(self.buffer)) is not None:
            opcode, payload, self.buffer = parsed
            if opcode == 1 and payload == self.ack_text:
                latencies.append((now - sent_at[len(latencies)]) / 1000)
            elif opcode == 1 and payload == self.heartbeat:
                self.connection.sendall(frame(1, payload))
            elif opcode == 9:
                self.connection.sendall(frame(10, payload))

    def close(self):
        for closable in (self.connection, self.listener):
            if closable is not None:
                closable.close()
