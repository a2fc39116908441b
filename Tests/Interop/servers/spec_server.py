# SPDX-License-Identifier: Apache-2.0
"""A push server written from docs/protocol.md alone, in its canonical profile.

No WebSocket library: the Python standard library and RFC 6455 only (spec_frames.py). The point is
that the protocol document suffices to write a server intrapushd works with, so it was written from
docs/protocol.md (version 1.2) without reading the daemon's sources; the S- statements it keeps
are named where they are kept.

Canonical profile: heartbeat `KA`; a push is acknowledged by `received message`, one per push and
per reply, in the order they were sent on the connection (S-ACK-2); a client's message is a JSON
object with a string `id`, acknowledged by `received message {id}` (S-OUT-1); a reply names its
request in `id` (S-REQ-1). Messages of type "request" are answered with {"id":…,"reply":{"echo":…}}.

Hosts (S-HOST): what it keeps is kept per host, the `Intrapush-Host` header (one host for all the
connections without it); a push goes to every host of the organisation the path names, or to one.

Two modes, from the environment (Tests/Interop/README.md): the interop scenario, or, with
INTEROP_MODE=check, a server driven by lines on standard input (`push TEXT`, `push-host HOST
TEXT`, `close CODE`) for the conformance checker. Either way it prints one JSON event per line,
and answers beside the upgrades an operator's API: POST /push (?host=H: to host H alone), POST
/control/close?code=C, GET /upstream. The self-test plants faults in its subclasses.
"""
import json
import os
import signal
import socket
import sys
import threading
import time
from urllib.parse import parse_qsl, urlsplit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from spec_frames import CLOSE, CONT, PING, PONG, TEXT, Peer, ProtocolError, segments, serve  # noqa: E402
from spec_hosts import HOST_ID, LEGACY, REPLACED, Host, Push  # noqa: E402

ACK_TEXT = "received message"                # S-ACK-2: by order, no id
HEARTBEAT_TEXT = "KA"                        # S-HB-2: ignored
UPSTREAM_ACK_TEXT = "received message {id}"  # S-OUT-1
MAX_MESSAGE_SIZE = 1 << 20                   # the clients' max_message_size (S-SIZE-1)


class Server:
    """The server's state, shared by its connections under one lock: every push in its order, and
    per host what is acknowledged or set aside, the messages taken, its connection now."""

    def __init__(self, path, subprotocol="", hello=None, idle_timeout=30.0, drain_timeout=5.0, out=None,
                 retention=7 * 86400, http_api=False, hello_timeout=10.0):
        self.path, self.subprotocol, self.hello, self.hello_timeout = path, subprotocol, hello, hello_timeout
        self.idle_timeout, self.drain_timeout, self.retention = idle_timeout, drain_timeout, retention
        self.http_api = http_api
        self.out = out or sys.stdout
        self.lock = threading.RLock()
        self.pushes = []          # every push, in the order queued (S-ACK-4)
        self.hosts = {}           # Intrapush-Host (LEGACY without) -> Host
        self.connections = 0
        self.current = None       # the connection that became ready last (the scenario's)
        self.all_connections = []
        self.output = threading.Lock()
        self.origin = time.monotonic()
        self.on_acknowledged = lambda: None  # the scenario's hook

    def event(self, kind, **fields):
        with self.output:
            self.out.write(json.dumps({"event": kind, "t": time.monotonic() - self.origin, **fields}) + "\n")
            self.out.flush()

    def host(self, key):
        """The host `key` ("": the connections without Intrapush-Host); new, it gets the retained
        pushes, but the host without the header only those no host was given yet (S-HOST-3)."""
        with self.lock:
            if key not in self.hosts:
                late = key == LEGACY and self.hosts
                self.hosts[key] = Host(key, time.time() - self.retention, len(self.pushes) + 1 if late else 1)
            return self.hosts[key]

    # --- pushes --------------------------------------------------------------------------------
    def queue(self, text, ident=None, frames=None, to=None):
        """Queues a push for every host (or host `to` alone) (S-ACK-1) and delivers it to each
        such host's connection that is ready."""
        data = text.encode()
        if ident is None:
            try:
                value = json.loads(text)
                ident = value.get("id") if isinstance(value, dict) else None
            except ValueError:
                ident = None
        with self.lock:
            push = Push(len(self.pushes) + 1, ident, frames or [(TEXT, True, data)], len(data), to)
            self.pushes.append(push)
            for host in self.hosts.values():
                if host.current is not None and host.wants(push):
                    host.current.deliver_pending()
        return push

    def pending(self, connection):
        """What `connection` may be sent: its host's, neither acknowledged, set aside, nor in flight
        on another open connection of the host."""
        host = connection.host
        elsewhere = {seq for other in host.open_connections() if other is not connection for seq in other.unacknowledged}
        return [p for p in self.pushes
                if host.wants(p) and p.seq not in host.acknowledged and p.seq not in host.set_aside
                and p.seq not in elsewhere and p.seq not in connection.sent]

    def open_connections(self):
        return [c for c in self.all_connections if not c.ended]

    def activate(self, connection):
        """A connection is ready (its hello accepted, or none wanted): it becomes its host's. An
        older connection of the host is closed with 4409 and sent nothing more; what it was sent
        and did not acknowledge comes on this one, in order, before new pushes (S-HOST-5). Without
        Intrapush-Host the older ones stay open, and the newest gets the deliveries (S-HOST-6)."""
        with self.lock:
            host = connection.host
            if host.key != LEGACY:
                for older in host.open_connections():
                    if older is not connection:
                        older.replaced = True
                        self.event("replaced", connection=older.n, by=connection.n)
                        older.close(REPLACED, "replaced by a newer connection of this host")
            host.current = self.current = connection
            connection.deliver_pending()

    def acknowledged_on(self, connection):
        """`received message`: the oldest push or reply sent on the connection and not yet
        acknowledged (S-ACK-2), for its host alone (S-HOST-2); with none waiting, nothing (S-ACK-6)."""
        with self.lock:
            if not connection.unacknowledged:
                return None
            seq = connection.unacknowledged.pop(0)
            connection.host.acknowledged.add(seq)
            push = self.pushes[seq - 1]
        self.on_acknowledged()
        return push

    def connection_ended(self, connection):
        """What the connection was sent and did not acknowledge stays pending (S-ACK-1) and goes,
        in its order, to its host's next connection (S-ACK-4)."""
        with self.lock:
            host = connection.host
            if self.current is connection:
                self.current = None
            if host.current is connection:
                ready = [c for c in host.open_connections() if c.ready]
                host.current = ready[-1] if ready else None
            if host.current is not None:
                host.current.deliver_pending()

    def closed_by_client(self, connection, code):
        """1009 or 1007: the push the client could not take is the largest it was sent and did
        not acknowledge; it is set aside for that host, not sent again forever (S-SIZE-2)."""
        if code in (1007, 1009):
            with self.lock:
                waiting = [self.pushes[seq - 1] for seq in connection.unacknowledged]
                if waiting:
                    largest = max(waiting, key=lambda p: p.size)
                    connection.host.set_aside.add(largest.seq)
                    self.event("set-aside", id=largest.id, code=code)

    # --- the client's messages -----------------------------------------------------------------
    def take(self, host, ident, message):
        """A client message, taken once by its id on its host (S-OUT-3, S-HOST-1); a request is
        answered once (S-REQ-2), to that host alone."""
        with self.lock:
            if ident in host.taken:
                self.event("taken-again", id=ident)
                return
            host.taken[ident] = message
            self.event("taken", id=ident, host=host.key or None)
        if message.get("type") == "request":   # S-REQ-1: a reply is a push, named by the request's id
            self.queue(json.dumps({"id": ident, "reply": {"echo": message}}, separators=(",", ":")), ident=ident,
                       to=host.key)

    def taken_ids(self):
        with self.lock:
            return [(ident, True) for host in self.hosts.values() for ident in host.taken]

    # --- closing, the operator's API -----------------------------------------------------------
    def close_clients(self, code, reason="going away"):
        with self.lock:
            connections = [c for c in self.open_connections() if not c.closing]
        for connection in connections:
            connection.close_when_acknowledged(code, reason)

    def answer_api(self, method, target, body):
        """POST /push (?host=H: for that host alone, S-HOST-4; ?org=: the path's, the one this
        server serves), POST /control/close?code=C, GET /upstream (the messages taken)."""
        parts = urlsplit(target)
        query = dict(parse_qsl(parts.query))
        if method == "POST" and parts.path == "/push":
            push = self.queue(body.decode("utf-8"), to=query.get("host"))
            return 202, json.dumps({"seq": push.seq})
        if method == "POST" and parts.path == "/control/close":
            self.close_clients(int(query.get("code", "1001")))
            return 202, "{}"
        if method == "GET" and parts.path == "/upstream":
            return 200, json.dumps({"messages": [{"id": ident, "taken": True} for ident, _ in self.taken_ids()]})
        return 404, '{"error":"not found"}'

    def serve(self, listener):
        serve(listener, lambda sock: self.connection_class(self, sock).run())

    connection_class = None  # set below


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
        self.replaced = False         # closed with 4409 for a newer connection of its host
        self.host = None
        self.last_heard = time.monotonic()

    def run(self):
        server = self.server
        headers = self.handshake(self.accepts, server.subprotocol, server.answer_api if server.http_api else None)
        if headers is None:
            return
        with server.lock:
            server.connections += 1
            self.n = server.connections
            server.all_connections.append(self)
            self.host = server.host(headers.get("intrapush-host", LEGACY))
            self.host.connections.append(self)
        server.event("open", connection=self.n, host=self.host.key or None, protocol=headers.get("sec-websocket-protocol"),
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

    def accepts(self, target, headers):
        """S-HS-3: the path's segments compared decoded (a malformed %-escape raises: 400, S-HS-9);
        S-HS-5: another path (token) is 401; S-HOST-7: a malformed Intrapush-Host is 400."""
        if segments(target) != segments(self.server.path):
            self.server.event("rejected")
            return 401, "Unauthorized"
        host = headers.get("intrapush-host")
        if host is not None and not HOST_ID.match(host):
            self.server.event("rejected-host", host=host)
            return 400, "Bad Request"
        return None

    def opened(self):
        if self.ready:
            self.became_ready()

    def became_ready(self):
        self.ready = True
        self.server.activate(self)

    def deliver_pending(self):
        """Sends what waits, in order (S-ACK-4), without waiting for acknowledgements (S-ACK-7)."""
        if not self.ready or self.draining or self.ended or self.replaced or self.closing:
            return
        with self.server.lock:
            for push in self.server.pending(self):
                self.sent.add(push.seq)
                self.unacknowledged.append(push.seq)
                for opcode, fin, payload in push.frames:
                    self.send(opcode, payload, fin)

    def watch_idle(self):
        """S-HB-3: a client from which nothing came for the idle timeout is dropped, with a close
        frame of code 1001 (S-HB-4), without waiting for acknowledgements; S-HELLO-4: one whose
        hello has not come within the hello timeout is closed with 1008."""
        opened = time.monotonic()
        while not self.ended and (self.server.idle_timeout or not self.ready):
            time.sleep(0.05)
            if not self.ready and time.monotonic() - opened > self.server.hello_timeout:
                return self.close(1008, "no hello")
            if time.monotonic() - self.last_heard > self.server.idle_timeout:
                self.server.event("idle", connection=self.n)
                self.close(1001, "idle")
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
            self.became_ready()
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
            self.server.take(self.host, message["id"], message)
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


def main():
    import spec_scenario  # the scenario's rules, apart from the protocol's
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    port = int(os.environ["INTEROP_PORT"])
    server = Server(os.environ["INTEROP_PATH"], os.environ.get("INTEROP_SUBPROTOCOL", ""),
                    hello=os.environ.get("INTEROP_HELLO") or None,
                    idle_timeout=float(os.environ.get("INTEROP_IDLE_TIMEOUT", "30")), http_api=True,
                    hello_timeout=float(os.environ.get("INTEROP_HELLO_TIMEOUT", "10")))
    listener = socket.create_server(("127.0.0.1", port))
    print(f"spec_server: listening on 127.0.0.1:{port}, upgrading {server.path}", file=sys.stderr, flush=True)
    if os.environ.get("INTEROP_MODE") == "check":
        threading.Thread(target=spec_scenario.read_commands, args=(server,), daemon=True).start()
    else:
        spec_scenario.play(server, int(os.environ["INTEROP_PUSHES"]))
    server.serve(listener)


if __name__ == "__main__":
    main()
