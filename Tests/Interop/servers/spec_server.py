"""The interop scenario (Tests/Interop/README.md) on a server written from docs/protocol.md alone.

No WebSocket library: the Python standard library and RFC 6455 only. The point of this program is
to check that the protocol document suffices to write a server intrapushd works with, so it was
written from docs/protocol.md (version 1.0) without reading the daemon's sources or the other
servers. The statements it follows are named (HS-3, HB-1, ACK-4, ...).

The server's copy of the fleet's client settings (protocol.md section 1), as the interop matrix
runs the daemon: ack_text "ack {id}" (the scenario's), heartbeat_text "KA", upstream_id_field "id",
upstream_ack_text "received message {id}".
"""
import base64
import hashlib
import json
import os
import queue
import signal
import socket
import struct
import sys
import threading
import time
from urllib.parse import unquote

PORT = int(os.environ["INTEROP_PORT"])
PATH = os.environ["INTEROP_PATH"]
PUSHES = int(os.environ["INTEROP_PUSHES"])
SUBPROTOCOL = os.environ.get("INTEROP_SUBPROTOCOL", "")

ACK_TEXT = "ack {id}"                          # the client's acknowledgement (ACK-1)
HEARTBEAT_TEXT = "KA"                          # HB-1: may be ignored
UPSTREAM_ID_FIELD = "id"                       # OUT-1
UPSTREAM_ACK_TEXT = "received message {id}"    # OUT-3
MAX_MESSAGE_SIZE = 1 << 20                     # section 9
GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"  # RFC 6455 section 1.3

CONT, TEXT, BINARY, CLOSE, PING, PONG = 0x0, 0x1, 0x2, 0x8, 0x9, 0xA

# The messages, in the order of connection 1: (id, frames), a frame being (opcode, fin, payload).
FRAG_TEXT = json.dumps({"id": "frag", "title": "fragmented", "body": "0123456789" * 300},
                       separators=(",", ":")).encode()
MESSAGES = [("frag", [(TEXT, False, FRAG_TEXT[:1000]), (CONT, False, FRAG_TEXT[1000:2000]),
                      (CONT, True, FRAG_TEXT[2000:])])]
MESSAGES += [(f"p{i}", [(TEXT, True, json.dumps({"id": f"p{i}", "title": f"push {i}", "body": f"interop push {i}"},
                                                separators=(",", ":")).encode())])
             for i in range(1, PUSHES + 1)]
FIRST_BATCH = MESSAGES[:1 + PUSHES // 2]       # frag, p1 … pN/2

state = threading.Lock()
acknowledged = set()       # ACK-4: a push is kept (here: sent again) until its id is in here
connections = 0
taken_upstream = set()     # OUT-2: the client's messages, deduplicated by id
output = threading.Lock()


def event(kind, **fields):
    with output:
        print(json.dumps({"event": kind, "t": time.monotonic(), **fields}), flush=True)


def log(text):
    print(f"spec_server: {text}", file=sys.stderr, flush=True)


def segments(path):
    """URL-1: the path's segments, each percent-decoded after splitting (so %2F stays in its segment)."""
    return [unquote(s, errors="strict") for s in path.split("?", 1)[0].split("/")]


def template_id(template, text):
    """The {id} of `text` when it has the form of `template`, else None."""
    prefix, _, suffix = template.partition("{id}")
    if len(text) >= len(prefix) + len(suffix) and text.startswith(prefix) and text.endswith(suffix):
        return text[len(prefix):len(text) - len(suffix)]
    return None


class ProtocolError(Exception):
    def __init__(self, code, why):
        super().__init__(why)
        self.code = code


class Connection:
    def __init__(self, sock, reader):
        self.sock, self.reader = sock, reader
        self.outgoing = queue.Queue()   # one writer thread: reading never waits on a write
        self.closing = False            # a close frame was queued: no more frames after it
        self.n = 0
        self.second_batch_sent = False
        self.complete = False

    # --- the handshake -------------------------------------------------------------------------
    def handshake(self):
        request = self.reader.readline(8192)
        if not request:
            return None
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
            headers[name] = f"{headers[name]}, {value}" if name in headers else value  # RFC 7230 3.2.2
        try:
            method, target, _version = request.decode("latin-1").split()
            right_path = segments(target) == segments(PATH)
        except (ValueError, UnicodeDecodeError):
            return self.refuse(400, "Bad Request")
        if not right_path:                                       # HS-4: a path we do not serve
            event("rejected")
            return self.refuse(401, "Unauthorized")
        # HS-1: Content-Length and Transfer-Encoding are neither required nor read.
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
        if SUBPROTOCOL and SUBPROTOCOL in offered:               # HS-3: select the one asked for
            answer += f"Sec-WebSocket-Protocol: {SUBPROTOCOL}\r\n"
        self.sock.sendall((answer + "\r\n").encode())
        return headers

    def refuse(self, status, reason, extra=""):
        self.sock.sendall(f"HTTP/1.1 {status} {reason}\r\n{extra}Content-Length: 0\r\nConnection: close\r\n\r\n"
                          .encode())
        return None

    # --- frames --------------------------------------------------------------------------------
    def send(self, opcode, payload=b"", fin=True):
        """Queue one frame (a server's frames are not masked, RFC 6455 5.1)."""
        if self.closing:
            return
        if opcode == CLOSE:
            self.closing = True
        n = len(payload)
        head = bytes([(0x80 if fin else 0) | opcode])
        head += bytes([n]) if n < 126 else struct.pack("!BH", 126, n) if n < 65536 else struct.pack("!BQ", 127, n)
        self.outgoing.put(head + payload)

    def close(self, code, reason=""):
        self.send(CLOSE, struct.pack("!H", code) + reason.encode())

    def write_loop(self):
        while (data := self.outgoing.get()) is not None:
            try:
                self.sock.sendall(data)
            except OSError:
                return

    def read_exactly(self, n):
        data = self.reader.read(n)
        if len(data) < n:
            raise EOFError
        return data

    def read_frame(self):
        b0, b1 = self.read_exactly(2)
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
            n = struct.unpack("!H", self.read_exactly(2))[0]
        elif n == 127:
            n = struct.unpack("!Q", self.read_exactly(8))[0]
            if n >> 63:
                raise ProtocolError(1002, "length beyond 2^63 - 1")
        if n > MAX_MESSAGE_SIZE:
            raise ProtocolError(1009, "frame too large")
        mask = self.read_exactly(4)
        data = self.read_exactly(n)
        key = (mask * (n // 4 + 1))[:n]
        payload = (int.from_bytes(data, "big") ^ int.from_bytes(key, "big")).to_bytes(n, "big")
        return bool(fin), opcode, payload

    # --- the scenario --------------------------------------------------------------------------
    def run(self):
        global connections
        headers = self.handshake()
        if headers is None:
            return
        with state:
            connections += 1
            self.n = connections
        event("open", connection=self.n, protocol=headers.get("sec-websocket-protocol"),
              x_interop=headers.get("x-interop"), content_length=headers.get("content-length"),
              transfer_encoding=headers.get("transfer-encoding"))
        writer = threading.Thread(target=self.write_loop, daemon=True)
        writer.start()
        self.send(PING, f"ping-{self.n}".encode())
        # ACK-5: pushes go out back to back, without waiting for acknowledgements.
        with state:
            todo = FIRST_BATCH if self.n == 1 else [m for m in MESSAGES if m[0] not in acknowledged]
        for _, frames in todo:   # ACK-4: the unacknowledged ones again, in their order
            for opcode, fin, payload in frames:
                self.send(opcode, payload, fin)
        self.progress()
        try:
            self.read_loop()
        except ProtocolError as error:   # CLOSE-2, from the server's side
            log(f"connection {self.n}: {error}")
            self.close(error.code)
        except (EOFError, OSError):
            pass
        finally:
            self.outgoing.put(None)
            writer.join(timeout=5)
            self.sock.close()

    def read_loop(self):
        message, message_opcode = [], None
        while True:
            if self.closing:
                self.sock.settimeout(5)   # RFC 6455 7.1.1: wait a while for the client's close
            fin, opcode, payload = self.read_frame()
            if opcode == PING:
                self.send(PONG, payload)   # HB-1: a server MUST answer pings
            elif opcode == PONG:
                event("pong", connection=self.n, payload=payload.decode("utf-8", "replace"))
            elif opcode == CLOSE:
                if len(payload) == 1:
                    raise ProtocolError(1002, "close payload of one byte")
                self.send(CLOSE, payload[:2])   # echo the code, unless we sent our close already
                return
            else:
                if (opcode == CONT) != (message_opcode is not None):
                    raise ProtocolError(1002, "continuation frame out of place")
                message_opcode = message_opcode if opcode == CONT else opcode
                message.append(payload)
                if sum(map(len, message)) > MAX_MESSAGE_SIZE:
                    raise ProtocolError(1009, "message too large")
                if fin:
                    data, kind = b"".join(message), message_opcode
                    message, message_opcode = [], None
                    if kind == TEXT:
                        try:
                            text = data.decode("utf-8")
                        except UnicodeDecodeError:
                            raise ProtocolError(1007, "text frame that is not UTF-8")
                        self.on_text(text)

    def on_text(self, text):
        acked = template_id(ACK_TEXT, text)
        if acked is not None:   # ACK-1: the client's acknowledgement of the push `acked`
            with state:
                acknowledged.add(acked)
            event("ack", connection=self.n, id=acked)
            self.progress()
            return
        event("text", connection=self.n, text=text)   # the hello (HS-8), heartbeats (HB-1), messages
        if text == HEARTBEAT_TEXT:
            return
        try:
            message = json.loads(text)
        except ValueError:
            return
        upstream_id = message.get(UPSTREAM_ID_FIELD) if isinstance(message, dict) else None
        if isinstance(upstream_id, str) and UPSTREAM_ACK_TEXT:   # OUT-1..3: take once, acknowledge each time
            with state:
                if upstream_id in taken_upstream:
                    log(f"message {upstream_id} again: acknowledged again, not taken twice")
                taken_upstream.add(upstream_id)
            self.send(TEXT, UPSTREAM_ACK_TEXT.replace("{id}", upstream_id).encode())

    def progress(self):
        with state:
            left = [m for m, _ in MESSAGES if m not in acknowledged]
            first_done = all(m in acknowledged for m, _ in FIRST_BATCH)
        if self.n == 1 and first_done and not self.second_batch_sent:
            self.second_batch_sent = True
            for _, frames in MESSAGES[len(FIRST_BATCH):]:
                for opcode, fin, payload in frames:
                    self.send(opcode, payload, fin)
            self.close(1001, "going away")   # CLOSE-3: a server going away
            event("closing", connection=1)
        elif self.n >= 2 and not left and not self.complete:
            self.complete = True
            event("complete", connection=self.n)


def serve(sock):
    try:
        Connection(sock, sock.makefile("rb")).run()
    except OSError as error:
        log(f"connection: {error}")
        sock.close()


def main():
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    listener = socket.create_server(("127.0.0.1", PORT))
    log(f"listening on 127.0.0.1:{PORT}, upgrading {PATH}")
    while True:
        sock, _ = listener.accept()
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        threading.Thread(target=serve, args=(sock,), daemon=True).start()


if __name__ == "__main__":
    main()
