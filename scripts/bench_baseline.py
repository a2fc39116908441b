"""What the daemon's figures are held against, measured in the same run: the same rows committed
by SQLite alone (one per transaction for latency, in batches for ingest), into a copy of the
daemon's own schema on the same filesystem, and a server in a few lines of Python on a raw
socket (the devserver is Swift and NIO like the daemon: a second, unrelated peer times the same
round trip).
"""
import base64, hashlib, os, select, shutil, socket, sqlite3, struct, time

GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
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


def bare_commit_latencies(template, directory, count, rate, size=300):
    """Milliseconds per commit of one push's row, paced at `rate`/s: what the disk allows a
    durable acknowledgement at best."""
    connection = open_copy(template, directory)
    samples = []
    next_slot = time.perf_counter()
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
        samples.append((time.perf_counter() - started) * 1000)
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
        key = next(line.split(b":", 1)[1].strip() for line in request.split(b"\r\n")
                   if line.lower().startswith(b"sec-websocket-key"))
        accept = base64.b64encode(hashlib.sha1(key + GUID).digest())
        self.connection.sendall(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                                b"Sec-WebSocket-Accept: " + accept + b"\r\n\r\n")

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


def frame(opcode, payload):
    length = len(payload)
    if length < 126:
        return bytes([0x80 | opcode, length]) + payload
    if length < 65536:
        return bytes([0x80 | opcode, 126]) + struct.pack("!H", length) + payload
    return bytes([0x80 | opcode, 127]) + struct.pack("!Q", length) + payload


def unmasked_frame(buffer):
    """(opcode, payload, rest) of the first whole client frame in `buffer`, or None."""
    if len(buffer) < 2:
        return None
    length, offset = buffer[1] & 0x7F, 2
    if length == 126:
        if len(buffer) < 4:
            return None
        length, offset = struct.unpack("!H", buffer[2:4])[0], 4
    elif length == 127:
        if len(buffer) < 10:
            return None
        length, offset = struct.unpack("!Q", buffer[2:10])[0], 10
    end = offset + 4 + length
    if len(buffer) < end:
        return None
    mask = buffer[offset:offset + 4]
    payload = bytes(byte ^ mask[index % 4] for index, byte in enumerate(buffer[offset + 4:end]))
    return buffer[0] & 0x0F, payload, buffer[end:]
