"""A push server written from docs/protocol.md alone, in its canonical profile.

No WebSocket library: the Python standard library and RFC 6455 only (spec_frames.py). The point is
that the protocol document suffices to write a server intrapushd works with, so it was written from
docs/protocol.md (version 1.1) without reading the daemon's sources; the S- statements it keeps
are named where they are kept.

Canonical profile: heartbeat `KA`; a push is acknowledged by `received message`, one per push and
per reply, in the order they were sent on the connection (S-ACK-2); a client's message is a JSON
object with a string `id`, acknowledged by `received message {id}` (S-OUT-1); a reply names its
request in `id` (S-REQ-1). Messages of type "request" are answered with {"id":…,"reply":{"echo":…}}.

Two modes, from the environment (Tests/Interop/README.md): the interop scenario, or, with
INTEROP_MODE=check, a server driven by lines on standard input (`push TEXT`, `close CODE`) for the
conformance checker. Either way it prints one JSON event per line. The conformance self-test
imports it and plants faults in subclasses of `Server` and `Connection`.
"""
import json
import os
import signal
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from spec_frames import CLOSE, CONT, PING, PONG, TEXT, Peer, ProtocolError, segments  # noqa: E402

ACK_TEXT = "received message"                # S-ACK-2: by order, no id
HEARTBEAT_TEXT = "KA"                        # S-HB-2: ignored
UPSTREAM_ACK_TEXT = "received message {id}"  # S-OUT-1
MAX_MESSAGE_SIZE = 1 << 20                   # the clients' max_message_size (S-SIZE-1)


class Push:
    def __init__(self, seq, ident, frames, size):
        self.seq, self.id, self.frames, self.size = seq, ident, frames, size


class Server:
    """The server's state, shared by its connections under one lock: every push in its order, what
    is acknowledged or set aside, the messages taken, and which connection is the client's now."""

    def __init__(self, path, subprotocol="", hello=None, idle_timeout=30.0, drain_timeout=5.0, out=None):
        self.path, self.subprotocol, self.hello = path, subprotocol, hello
        self.idle_timeout, self.drain_timeout = idle_timeout, drain_timeout
        self.out = out or sys.stdout
        self.lock = threading.RLock()
        self.pushes = []          # every push, in the order queued (S-ACK-4)
        self.acknowledged = set()  # seqs acknowledged (S-ACK-1: kept until then)
        self.set_aside = set()     # seqs the client could not take (S-SIZE-2)
        self.taken = {}            # client message id -> the message (S-OUT-3: once)
        self.connections = 0
        self.current = None        # the client's newest connection: deliveries go there
        self.all_connections = []
        self.output = threading.Lock()
        self.origin = time.monotonic()
        self.on_acknowledged = lambda: None  # the scenario's hook

    def event(self, kind, **fields):
        with self.output:
            self.out.write(json.dumps({"event": kind, "t": time.monotonic() - self.origin, **fields}) + "\n")
            self.out.flush()

    # --- pushes --------------------------------------------------------------------------------
    def queue(self, text, ident=None, frames=None):
        """Queues a push (S-ACK-1) and delivers it to the client's connection if one is ready."""
        data = text.encode()
        if ident is None:
            try:
                value = json.loads(text)
                ident = value.get("id") if isinstance(value, dict) else None
            except ValueError:
                ident = None
        with self.lock:
            push = Push(len(self.pushes) + 1, ident, frames or [(TEXT, True, data)], len(data))
            self.pushes.append(push)
            if self.current is not None:
                self.current.deliver_pending()
        return push

    def pending(self, connection):
        """What `connection` may be sent: neither acknowledged, set aside, nor in flight elsewhere."""
        elsewhere = {seq for other in self.open_connections() if other is not connection for seq in other.unacknowledged}
        return [p for p in self.pushes
                if p.seq not in self.acknowledged and p.seq not in self.set_aside and p.seq not in elsewhere
                and p.seq not in connection.sent]

    def open_connections(self):
        return [c for c in self.all_connections if not c.ended]

    def acknowledged_on(self, connection):
        """`received message`: the oldest push or reply sent on the connection and not yet
        acknowledged (S-ACK-2); with none waiting, nothing (S-ACK-6)."""
        with self.lock:
            if not connection.unacknowledged:
                return None
            seq = connection.unacknowledged.pop(0)
            self.acknowledged.add(seq)
            push = self.pushes[seq - 1]
        self.on_acknowledged()
        return push

    def connection_ended(self, connection):
        """What the connection was sent and did not acknowledge stays pending (S-ACK-1) and goes,
        in its order, to the client's next connection (S-ACK-4)."""
        with self.lock:
            if self.current is connection:
                self.current = None
            for other in self.open_connections():
                other.deliver_pending()

    def closed_by_client(self, connection, code):
        """1009 or 1007: the push the client could not take is the largest it was sent and did
        not acknowledge; it is set aside, not sent again forever (S-SIZE-2)."""
        if code in (1007, 1009):
            with self.lock:
                waiting = [self.pushes[seq - 1] for seq in connection.unacknowledged]
                if waiting:
                    largest = max(waiting, key=lambda p: p.size)
                    self.set_aside.add(largest.seq)
                    self.event("set-aside", id=largest.id, code=code)

    # --- the client's messages -----------------------------------------------------------------
    def take(self, ident, message):
        """A client message, taken once by its id (S-OUT-3); a request is answered once (S-REQ-2)."""
        with self.lock:
            if ident in self.taken:
                self.event("taken-again", id=ident)
                return
            self.taken[ident] = message
            self.event("taken", id=ident)
        if message.get("type") == "request":   # S-REQ-1: a reply is a push, named by the request's id
            self.queue(json.dumps({"id": ident, "reply": {"echo": message}}, separators=(",", ":")), ident=ident)

    def taken_ids(self):
        with self.lock:
            return [(ident, True) for ident in self.taken]

    # --- closing -------------------------------------------------------------------------------
    def close_clients(self, code, reason="going away"):
        with self.lock:
            connections = self.open_connections()
        for connection in connections:
            connection.close_when_acknowledged(code, reason)

    def serve(self, listener):
        while True:
            try:
                sock, _ = listener.accept()
            except OSError:
                return
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            threading.Thread(target=self.run_connection, args=(sock,), daemon=True).start()

    connection_class = None  # set below

    def run_connection(self, sock):
        try:
            self.connection_class(self, sock).run()
        except OSError:
            sock.close()


class Connection(Peer):
    def __init__(self, server, sock):
        super().__init__(sock, MAX_MESSAGE_SIZE)
        self.server = server
        self.n = 0
        self.sent = set()             # seqs sent on this connection
        self.unacknowledged = []      # seqs sent and not acknowledged, in send order
        self.ready = server.hello is None   # S-HELLO-2: nothing before the hello
        self.first_text = True
        self.draining = False
        self.ended = False
        self.last_heard = time.monotonic()

    def run(self):
        headers = self.handshake(self.accepts, self.server.subprotocol)
        if headers is None:
            return
        server = self.server
        with server.lock:
            server.connections += 1
            self.n = server.connections
            server.all_connections.append(self)
            server.current = self
        server.event("open", connection=self.n, protocol=headers.get("sec-websocket-protocol"),
                     x_interop=headers.get("x-interop"), content_length=headers.get("content-length"),
                     transfer_encoding=headers.get("transfer-encoding"))
        self.start_writer()
        threading.Thread(target=self.watch_idle, daemon=True).start()
        self.opened()
        try:
            self.read_loop()
        except ProtocolError as error:
            self.close(error.code)
        except (EOFError, OSError):
            pass
        finally:
            self.ended = True
            self.stop_writer()
            server.connection_ended(self)
            server.event("ended", connection=self.n)

    def accepts(self, target):
        """S-HS-3: the path's segments compared decoded; S-HS-5: another path (token) is 401."""
        if segments(target) == segments(self.server.path):
            return True
        self.server.event("rejected")
        return False

    def opened(self):
        with self.server.lock:
            self.deliver_pending()

    def deliver_pending(self):
        """Sends what waits, in order (S-ACK-4), without waiting for acknowledgements (S-ACK-7)."""
        if not self.ready or self.draining or self.ended:
            return
        with self.server.lock:
            for push in self.server.pending(self):
                self.sent.add(push.seq)
                self.unacknowledged.append(push.seq)
                for opcode, fin, payload in push.frames:
                    self.send(opcode, payload, fin)

    def watch_idle(self):
        """S-HB-3: a client from which nothing came for the idle timeout is dropped."""
        while not self.ended and self.server.idle_timeout:
            time.sleep(0.1)
            if time.monotonic() - self.last_heard > self.server.idle_timeout:
                self.server.event("idle", connection=self.n)
                self.drop()
                return

    def read_loop(self):
        for opcode, payload in self.messages():
            self.last_heard = time.monotonic()
            if opcode == PING:
                self.send(PONG, payload)          # S-HB-1
            elif opcode == PONG:
                self.server.event("pong", connection=self.n, payload=payload.decode("utf-8", "replace"))
            elif opcode == CLOSE:
                code = int.from_bytes(payload[:2], "big") if len(payload) >= 2 else 1005
                self.server.closed_by_client(self, code)
                self.send(CLOSE, payload[:2])     # S-CLOSE-1: echoed (unless ours went first)
                return
            elif opcode == TEXT:
                self.on_text(payload.decode("utf-8"))

    def on_text(self, text):
        """Told apart as the protocol says: the hello by its place, then a heartbeat, an
        acknowledgement, a message of the client's; anything else acknowledges nothing (S-ACK-3)."""
        first, self.first_text = self.first_text, False
        if first and self.server.hello is not None:      # S-HELLO-1
            if text != self.server.hello:                 # S-HELLO-2
                self.server.event("hello-refused", connection=self.n)
                self.close(1008, "expected the hello")
                return
            self.server.event("text", connection=self.n, text=text)
            self.ready = True
            self.deliver_pending()
            return
        if text == HEARTBEAT_TEXT:
            self.server.event("text", connection=self.n, text=text)
            return
        if text == ACK_TEXT:
            push = self.server.acknowledged_on(self)
            if push is not None:
                self.server.event("ack", connection=self.n, id=push.id)
            self.finish_drain()
            return
        self.server.event("text", connection=self.n, text=text)
        try:
            message = json.loads(text)
        except ValueError:
            return
        if isinstance(message, dict) and isinstance(message.get("id"), str):
            self.server.take(message["id"], message)
            self.send(TEXT, UPSTREAM_ACK_TEXT.replace("{id}", json.dumps(message["id"])[1:-1]).encode())

    def close_when_acknowledged(self, code, reason=""):
        """S-CLOSE-2: stop sending, wait (at most the drain timeout) for what was sent to be
        acknowledged, then close; the client acknowledges nothing after a server's close."""
        self.draining = True
        self.pending_close = (code, reason)
        if not self.unacknowledged:
            self.finish_drain()
        else:
            timer = threading.Timer(self.server.drain_timeout, self.finish_drain, kwargs={"timed_out": True})
            timer.daemon = True
            timer.start()

    def finish_drain(self, timed_out=False):
        if self.draining and (timed_out or not self.unacknowledged) and not self.closing:
            code, reason = self.pending_close
            self.server.event("closing", connection=self.n, code=code)
            self.close(code, reason)


Server.connection_class = Connection


def read_commands(server):
    """Check mode: `push TEXT` queues a push; `close CODE` closes the client's connection."""
    for line in sys.stdin:
        verb, _, rest = line.rstrip("\n").partition(" ")
        if verb == "push":
            server.queue(rest)
        elif verb == "close":
            server.close_clients(int(rest or 1001))


def main():
    import spec_scenario  # the scenario's rules, apart from the protocol's
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    port = int(os.environ["INTEROP_PORT"])
    server = Server(os.environ["INTEROP_PATH"], os.environ.get("INTEROP_SUBPROTOCOL", ""),
                    hello=os.environ.get("INTEROP_HELLO") or None,
                    idle_timeout=float(os.environ.get("INTEROP_IDLE_TIMEOUT", "30")))
    listener = socket.create_server(("127.0.0.1", port))
    print(f"spec_server: listening on 127.0.0.1:{port}, upgrading {server.path}", file=sys.stderr, flush=True)
    if os.environ.get("INTEROP_MODE") == "check":
        threading.Thread(target=read_commands, args=(server,), daemon=True).start()
    else:
        spec_scenario.play(server, int(os.environ["INTEROP_PUSHES"]))
    server.serve(listener)


if __name__ == "__main__":
    main()
