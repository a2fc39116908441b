# SPDX-License-Identifier: Apache-2.0
"""The server side of RFC 6455 for spec_server.py, with the Python standard library only: the
upgrade (or, on the same port, a plain HTTP request for the operator's API), unmasked frames out
through one writer thread, masked frames in, fragments joined, ping and close. Written from RFC
6455 and docs/protocol.md (S-HS, S-CLOSE-1), not from the daemon.
"""
import base64
import hashlib
import queue
import re
import socket
import struct
import threading
from http import HTTPStatus
from urllib.parse import unquote

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"  # RFC 6455 section 1.3
CONT, TEXT, BINARY, CLOSE, PING, PONG = 0x0, 0x1, 0x2, 0x8, 0x9, 0xA


MALFORMED_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")


def segments(path):
    """S-HS-3: the path's segments, split first and then percent-decoded (so %2F stays inside).
    Raises ValueError for a `%` not followed by two hexadecimal digits, or bytes that are not
    UTF-8 (S-HS-9: the upgrade is answered 400)."""
    parts = path.split("?", 1)[0].split("/")
    if any(MALFORMED_ESCAPE.search(part) for part in parts):
        raise ValueError("a malformed percent-encoding")
    return [unquote(part, errors="strict") for part in parts]


def serve(listener, handle):
    """Accepts connections for ever (until the listener closes), each handled on a thread of its own."""
    while True:
        try:
            sock, _ = listener.accept()
        except OSError:
            return
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        threading.Thread(target=_handle, args=(handle, sock), daemon=True).start()


def _handle(handle, sock):
    try:
        handle(sock)
    except OSError:
        sock.close()


class ProtocolError(Exception):
    def __init__(self, code, why):
        super().__init__(why)
        self.code = code


class Peer:
    """One upgraded socket: `send` queues a frame for the writer thread, `messages` yields what
    the client sends, whole; after `close` nothing more is sent, and the socket is closed once
    the client answers or a few seconds passed."""

    def __init__(self, sock, max_message_size):
        self.sock, self.reader = sock, sock.makefile("rb")
        self.max_message_size = max_message_size
        self.outgoing = queue.Queue()
        self.closing = False
        self.write_lock = threading.Lock()

    # --- the upgrade ---------------------------------------------------------------------------
    def handshake(self, accepts, subprotocol, api=None):
        """Reads the upgrade; answers 101 (S-HS-1) unless `accepts(target, headers)` names a
        refusal, (status, reason): 401 for another token (S-HS-5), say; a path whose
        percent-encoding is malformed is 400 (S-HS-9). A request that is no upgrade goes, with
        `api`, to `api(method, target, body)`, which returns (status, text). Returns the
        request's headers (lower-case names), or None when not upgraded."""
        request = self.reader.readline(8192)
        headers, size = {}, 0
        while True:
            line = self.reader.readline(8192)
            size += len(line)
            if not line or size > 65536:
                return None
            if line in (b"\r\n", b"\n"):
                break
            name, _, value = line.decode("latin-1").partition(":")
            name, value = name.strip().lower(), value.strip()
            headers[name] = f"{headers[name]}, {value}" if name in headers else value
        try:
            method, target, _version = request.decode("latin-1").split()
        except ValueError:
            return self.refuse(400, "Bad Request")
        if api is not None and headers.get("upgrade", "").lower() != "websocket":
            try:
                body = self._read_exactly(int(headers.get("content-length") or 0))
                status, text = api(method, target, body)
            except (ValueError, EOFError):
                status, text = 400, '{"error":"bad request"}'
            return self.refuse(status, HTTPStatus(status).phrase, body=text)
        try:
            refusal = accepts(target, headers)
        except ValueError:  # S-HS-9 (UnicodeDecodeError is one)
            return self.refuse(400, "Bad Request")
        if refusal is not None:
            return self.refuse(*refusal)
        # S-HS-2: Content-Length and Transfer-Encoding are neither required nor read.
        if (method != "GET" or headers.get("upgrade", "").lower() != "websocket"
                or "upgrade" not in [t.strip().lower() for t in headers.get("connection", "").split(",")]
                or "sec-websocket-key" not in headers):
            return self.refuse(400, "Bad Request")
        if headers.get("sec-websocket-version") != "13":
            return self.refuse(426, "Upgrade Required", "Sec-WebSocket-Version: 13\r\n")
        offered = [p.strip() for p in headers.get("sec-websocket-protocol", "").split(",") if p.strip()]
        accept = base64.b64encode(hashlib.sha1((headers["sec-websocket-key"] + GUID).encode()).digest()).decode()
        answer = ("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  f"Sec-WebSocket-Accept: {accept}\r\n")
        selected = self.select_subprotocol(offered, subprotocol)
        if selected:
            answer += f"Sec-WebSocket-Protocol: {selected}\r\n"
        self.sock.sendall((answer + "\r\n").encode())
        return headers

    def select_subprotocol(self, offered, subprotocol):
        """S-HS-4: the one asked for, never another; S-HS-10, S-HS-11: none that it does not speak."""
        return subprotocol if subprotocol and subprotocol in offered else None

    def refuse(self, status, reason, extra="", body=""):
        data = body.encode()
        self.sock.sendall(f"HTTP/1.1 {status} {reason}\r\n{extra}Content-Type: application/json\r\n"
                          f"Content-Length: {len(data)}\r\nConnection: close\r\n\r\n".encode() + data)
        self.sock.close()
        return None

    # --- writing -------------------------------------------------------------------------------
    def start_writer(self):
        threading.Thread(target=self._write_loop, daemon=True).start()

    def stop_writer(self):
        self.outgoing.put(None)

    def send(self, opcode, payload=b"", fin=True):
        """Queues one frame (a server's frames are not masked, RFC 6455 5.1); nothing after a close."""
        with self.write_lock:
            if self.closing:
                return
            if opcode == CLOSE:
                self.closing = True
            n = len(payload)
            head = bytes([(0x80 if fin else 0) | opcode])
            head += bytes([n]) if n < 126 else struct.pack("!BH", 126, n) if n < 65536 else struct.pack("!BQ", 127, n)
            self.outgoing.put(head + payload)

    def close(self, code, reason=""):
        """Our close frame; the client has a few seconds to answer before the socket closes."""
        self.send(CLOSE, struct.pack("!H", code) + reason.encode())
        timer = threading.Timer(5.0, self.drop)
        timer.daemon = True
        timer.start()

    def drop(self):
        try:
            self.sock.shutdown(2)
        except OSError:
            pass

    def _write_loop(self):
        while (data := self.outgoing.get()) is not None:
            try:
                self.sock.sendall(data)
            except OSError:
                break
        self.drop()  # the FIN now: close() alone waits for the reader's file to go
        self.sock.close()

    # --- reading -------------------------------------------------------------------------------
    def _read_exactly(self, n):
        data = self.reader.read(n)
        if len(data) < n:
            raise EOFError
        return data

    def _frame(self):
        b0, b1 = self._read_exactly(2)
        fin, opcode, masked, n = b0 & 0x80, b0 & 0x0F, b1 & 0x80, b1 & 0x7F
        if b0 & 0x70:
            raise ProtocolError(1002, "reserved bits set")
        if opcode not in (CONT, TEXT, BINARY, CLOSE, PING, PONG):
            raise ProtocolError(1002, f"unknown opcode {opcode}")
        if not masked:
            raise ProtocolError(1002, "a client's frame must be masked")
        if opcode >= CLOSE and (not fin or n > 125):
            raise ProtocolError(1002, "control frame fragmented or over 125 bytes")
        if n == 126:
            n = struct.unpack("!H", self._read_exactly(2))[0]
        elif n == 127:
            n = struct.unpack("!Q", self._read_exactly(8))[0]
        if n > self.max_message_size:
            raise ProtocolError(1009, "frame too large")
        mask = self._read_exactly(4)
        data = self._read_exactly(n)
        key = (mask * (n // 4 + 1))[:n]
        return bool(fin), opcode, (int.from_bytes(data, "big") ^ int.from_bytes(key, "big")).to_bytes(n, "big")

    def messages(self):
        """Yields (opcode, payload): control frames as they come, data messages whole; a text
        message is checked to be UTF-8 (1007 otherwise)."""
        parts, kind = [], None
        while True:
            fin, opcode, payload = self._frame()
            if opcode >= CLOSE:
                yield opcode, payload
                if opcode == CLOSE:
                    return
                continue
            if (opcode == CONT) != (kind is not None):
                raise ProtocolError(1002, "continuation frame out of place")
            kind = kind if opcode == CONT else opcode
            parts.append(payload)
            if sum(map(len, parts)) > self.max_message_size:
                raise ProtocolError(1009, "message too large")
            if fin:
                data, message_kind, parts, kind = b"".join(parts), kind, [], None
                if message_kind == TEXT:
                    try:
                        data.decode("utf-8")
                    except UnicodeDecodeError:
                        raise ProtocolError(1007, "text frame that is not UTF-8")
                yield message_kind, data
