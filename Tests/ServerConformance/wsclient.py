# SPDX-License-Identifier: Apache-2.0
"""The checker's WebSocket client: RFC 6455 written out with the Python standard library.

It behaves on the wire as intrapushd does: a GET without body framing, masked frames, pongs
carrying each ping's payload (at any time, its own close included), fragments joined, a close
echoed at once, 1009 for a message over its limit and 1007 for a text message that is not UTF-8.
What arrives is put on a queue, in order, with the time it came, for the steps to read.
"""
import base64
import hashlib
import os
import queue
import socket
import ssl
import struct
import threading
import time
from urllib.parse import urlsplit

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"  # RFC 6455 section 1.3
CONT, TEXT, BINARY, CLOSE, PING, PONG = 0x0, 0x1, 0x2, 0x8, 0x9, 0xA
MAX_HEAD = 80 * 1024  # the client reads at most this much of the upgrade's answer


class Refused(Exception):
    """The upgrade was answered with another status than 101 (or not at all)."""

    def __init__(self, status, reason, head_bytes=0, elapsed=0.0):
        super().__init__(f"HTTP {status} {reason}".strip())
        self.status, self.reason, self.head_bytes, self.elapsed = status, reason, head_bytes, elapsed


class Upgrade:
    """What the server answered: status, headers (lower-case names), the head's size, the time taken."""

    def __init__(self, status, reason, headers, head_bytes, elapsed, key):
        self.status, self.reason, self.headers = status, reason, headers
        self.head_bytes, self.elapsed, self.key = head_bytes, elapsed, key

    def accept_is_valid(self):
        wanted = base64.b64encode(hashlib.sha1((self.key + GUID).encode()).digest()).decode()
        return self.headers.get("sec-websocket-accept") == wanted


class Event:
    """One thing that came from the server: a message, a pong, a close, or the end of the stream."""

    def __init__(self, kind, data=None, code=None, fragments=1):
        self.kind, self.data, self.code, self.fragments = kind, data, code, fragments
        self.time = time.monotonic()

    @property
    def text(self):
        return self.data if self.kind == "text" else None

    def __repr__(self):
        shown = self.data if not isinstance(self.data, (bytes, str)) or len(self.data) < 80 else self.data[:77] + "…"
        return f"<{self.kind} {shown!r}{'' if self.code is None else f' code {self.code}'}>"


def connect(url, headers=(), subprotocols=(), timeout=10.0, ca_file=None, max_message_size=1 << 20):
    """Opens a WebSocket; returns (WebSocket, Upgrade), or raises Refused or OSError."""
    parts = urlsplit(url)
    secure = parts.scheme == "wss"
    port = parts.port or (443 if secure else 80)
    started = time.monotonic()
    raw = socket.create_connection((parts.hostname, port), timeout=timeout)
    raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock = raw
    if secure:
        context = ssl.create_default_context(cafile=ca_file)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        sock = context.wrap_socket(raw, server_hostname=parts.hostname)
    key = base64.b64encode(os.urandom(16)).decode()
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    host = parts.netloc.rsplit("@", 1)[-1]
    lines = [f"GET {target} HTTP/1.1", f"Host: {host}", "Upgrade: websocket", "Connection: Upgrade",
             f"Sec-WebSocket-Key: {key}", "Sec-WebSocket-Version: 13"]
    lines += [f"{name}: {value}" for name, value in headers]
    if subprotocols:
        lines.append("Sec-WebSocket-Protocol: " + ", ".join(subprotocols))
    sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
    reader = sock.makefile("rb")
    head, size = [], 0
    while True:
        line = reader.readline(MAX_HEAD + 1)
        size += len(line)
        if not line:
            sock.close()
            raise Refused(0, "the connection closed before an answer", size, time.monotonic() - started)
        if size > MAX_HEAD:
            sock.close()
            raise Refused(0, f"an answer with more than {MAX_HEAD} bytes of headers", size, time.monotonic() - started)
        if line in (b"\r\n", b"\n"):
            break
        head.append(line.decode("latin-1").rstrip("\r\n"))
    elapsed = time.monotonic() - started
    status_line = head[0].split(" ", 2) if head else ["", "0", ""]
    status = int(status_line[1]) if len(status_line) > 1 and status_line[1].isdigit() else 0
    reason = status_line[2] if len(status_line) > 2 else ""
    answer = {}
    for line in head[1:]:
        name, _, value = line.partition(":")
        name = name.strip().lower()
        answer[name] = f"{answer[name]}, {value.strip()}" if name in answer else value.strip()
    if status != 101:
        sock.close()
        raise Refused(status, reason, size, elapsed)
    sock.settimeout(None)
    upgrade = Upgrade(status, reason, answer, size, elapsed, key)
    return WebSocket(sock, reader, max_message_size), upgrade


class WebSocket:
    """An open connection. A reader thread fills `events`; writes are serialised by a lock."""

    def __init__(self, sock, reader, max_message_size):
        self.sock, self.reader = sock, reader
        self.max_message_size = max_message_size
        self.events = queue.Queue()
        self.log = []  # every event, in order, for the observations made over the whole run
        self.write_lock = threading.Lock()
        self.close_sent = False
        self.close_received = None  # the server's close code (None: none yet; 1005: no code)
        self.invalid_text = 0       # text messages that were not UTF-8
        self.bytes_after_close = 0  # what came after the server's close frame (nothing may)
        self.ended = threading.Event()
        threading.Thread(target=self._read_loop, daemon=True).start()

    # --- writing -------------------------------------------------------------------------------
    def _send(self, opcode, payload=b""):
        mask = os.urandom(4)
        n = len(payload)
        head = bytes([0x80 | opcode])
        head += bytes([0x80 | n]) if n < 126 else struct.pack("!BH", 0x80 | 126, n) if n < 65536 else struct.pack("!BQ", 0x80 | 127, n)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload)) if n < 4096 else _mask_long(payload, mask)
        with self.write_lock:
            if self.close_sent and opcode != PONG:
                return False  # nothing follows our close but pongs
            if opcode == CLOSE:
                self.close_sent = True
            try:
                self.sock.sendall(head + mask + masked)
                return True
            except OSError:
                return False

    def send_text(self, text):
        return self._send(TEXT, text.encode())

    def send_ping(self, payload=b""):
        return self._send(PING, payload)

    def send_close(self, code=1000, reason=""):
        return self._send(CLOSE, struct.pack("!H", code) + reason.encode())

    # --- reading -------------------------------------------------------------------------------
    def _read_exactly(self, n):
        data = self.reader.read(n)
        if data is None or len(data) < n:
            raise EOFError
        return data

    def _put(self, event):
        self.log.append(event)
        self.events.put(event)

    def _read_loop(self):
        parts, opcode_of_message = [], None
        try:
            while True:
                b0, b1 = self._read_exactly(2)
                fin, opcode, n = b0 & 0x80, b0 & 0x0F, b1 & 0x7F
                if n == 126:
                    n = struct.unpack("!H", self._read_exactly(2))[0]
                elif n == 127:
                    n = struct.unpack("!Q", self._read_exactly(8))[0]
                if b1 & 0x80 or b0 & 0x70:
                    self._fail(1002, "a masked frame or reserved bits from the server")
                    return
                if opcode in (TEXT, BINARY, CONT) and n + sum(map(len, parts)) > self.max_message_size:
                    self._fail(1009, f"a message over {self.max_message_size} bytes")
                    return
                payload = self._read_exactly(n) if n else b""
                if opcode == PING:
                    self._send(PONG, payload)
                elif opcode == PONG:
                    self._put(Event("pong", payload))
                elif opcode == CLOSE:
                    code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else 1005
                    self.close_received = code
                    self._put(Event("close", payload[2:].decode("utf-8", "replace"), code=code))
                    if not self.close_sent:
                        self.send_close(code if len(payload) >= 2 else 1000)  # the echo, at once
                    self._wait_end(2.0)
                    return
                else:
                    if opcode != CONT:
                        opcode_of_message = opcode
                    parts.append(payload)
                    if fin:
                        data, kind = b"".join(parts), opcode_of_message
                        count = len(parts)
                        parts, opcode_of_message = [], None
                        if kind == TEXT:
                            try:
                                self._put(Event("text", data.decode("utf-8"), fragments=count))
                            except UnicodeDecodeError:
                                self.invalid_text += 1
                                self._fail(1007, "a text message that is not UTF-8")
                                return
                        else:
                            self._put(Event("binary", data, fragments=count))
        except (EOFError, OSError, ValueError):
            pass
        finally:
            self._end()

    def _fail(self, code, why):
        self.send_close(code)  # first: a step that sees the event may drop the connection
        self._put(Event("failed", why, code=code))
        self._wait_end(2.0)

    def _wait_end(self, seconds):
        """After a close, wait for the server to end the stream (or give up), counting what comes."""
        self.sock.settimeout(seconds)
        try:
            while data := self.reader.read1(4096):
                self.bytes_after_close += len(data)
        except (OSError, ValueError):
            pass

    def _end(self):
        if not self.ended.is_set():
            self.ended.set()
            self._put(Event("eof"))
            try:
                self.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            try:
                self.sock.close()
            except OSError:
                pass

    # --- for the steps -------------------------------------------------------------------------
    def next(self, timeout):
        """The next event, or None after `timeout` seconds."""
        try:
            return self.events.get(timeout=max(0.0, timeout))
        except queue.Empty:
            return None

    def close(self, code=1000, wait=2.0):
        """The client's close: a close frame, the server's answer awaited, then the socket closed.
        Returns the server's close code, or None when none came."""
        self.send_close(code)
        self.ended.wait(wait + 0.5)
        self.abort()
        return self.close_received

    def abort(self):
        """Drops the TCP connection without a close frame."""
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        try:
            self.sock.close()
        except OSError:
            pass
        self.ended.wait(1.0)


def _mask_long(payload, mask):
    n = len(payload)
    key = (mask * (n // 4 + 1))[:n]
    return (int.from_bytes(payload, "big") ^ int.from_bytes(key, "big")).to_bytes(n, "big")
