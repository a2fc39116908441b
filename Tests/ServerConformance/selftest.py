"""The checker's self-test: it must pass spec_server.py (the canonical profile, written from the
document) and report each fault planted in a copy of it as the statement that fault breaks.

Each faulty server is spec_server's `Server` or `Connection` with one method replaced; it runs in
this process, on a port of its own. Exit status 0 only when the correct server passes every step
and every fault is reported failed.
"""
import json
import socket
import sys
import threading
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "Interop" / "servers"))
import spec_server  # noqa: E402
from checker import FAILED, Checker, Settings, Target, render_text  # noqa: E402

TOKEN = "good-token"
HELLO = json.dumps({"type": "hello", "token": TOKEN}, separators=(",", ":"))
REQUEST = '{"type":"request"}'
IDLE_TIMEOUT = 1.0


class ForgetsUnacknowledged(spec_server.Server):
    """What a connection was sent and did not acknowledge is forgotten when it ends."""

    def connection_ended(self, connection):
        with self.lock:
            self.acknowledged.update(connection.unacknowledged)
        super().connection_ended(connection)


class AcknowledgesUnstored(spec_server.Connection):
    """Acknowledges the client's messages without taking them."""

    def on_text(self, text):
        try:
            message = json.loads(text)
        except ValueError:
            message = None
        if not self.first_text and isinstance(message, dict) and isinstance(message.get("id"), str):
            self.send(spec_server.TEXT, f"received message {message['id']}".encode())
            return
        super().on_text(text)


class IgnoresHello(spec_server.Connection):
    """Sends pushes at once and takes the first frame like any other."""

    def __init__(self, server, sock):
        super().__init__(server, sock)
        self.ready, self.first_text = True, False


class AcknowledgesAnyText(spec_server.Connection):
    """Takes any text frame it does not understand for an acknowledgement (as the devserver did)."""

    def on_text(self, text):
        if not self.first_text and text not in (spec_server.HEARTBEAT_TEXT, spec_server.ACK_TEXT) and not text.startswith("{"):
            text = spec_server.ACK_TEXT
        super().on_text(text)


class ClosesAtOnce(spec_server.Connection):
    """Closes when asked, without waiting for what it sent to be acknowledged."""

    def close_when_acknowledged(self, code, reason=""):
        self.close(code, reason)


class ResendsOnTheConnection(spec_server.Server):
    """Sends again, on the same connection, what waits for its acknowledgement, with each new push."""

    def pending(self, connection):
        return [p for p in self.pushes if p.seq not in self.acknowledged and p.seq not in self.set_aside]


class KeepsTheOversized(spec_server.Server):
    """Sends a push the client closed with 1009 for again, and again."""

    def closed_by_client(self, connection, code):
        pass


class AnswersTwice(spec_server.Server):
    """Answers a request each time it comes, repeats included."""

    def take(self, ident, message):
        with self.lock:
            self.taken.pop(ident, None)
        super().take(ident, message)


# (name, Server class, Connection class, the steps that must catch it, the statement they must fail)
FAULTS = [
    ("forgets what was not acknowledged at a reconnect", ForgetsUnacknowledged, None, ["delivery"], "S-ACK-1"),
    ("acknowledges messages it never took", None, AcknowledgesUnstored, ["messages"], "S-OUT-4"),
    ("ignores the hello", None, IgnoresHello, ["hello"], "S-HELLO-2"),
    ("takes any text for an acknowledgement", None, AcknowledgesAnyText, ["not_acknowledgements"], "S-ACK-3"),
    ("closes without waiting for acknowledgements", None, ClosesAtOnce, ["server_close"], "S-CLOSE-2"),
    ("sends a push again on its connection", ResendsOnTheConnection, None, ["no_resend"], "S-ACK-5"),
    ("sends a push the client cannot take forever", KeepsTheOversized, None, ["oversized"], "S-SIZE-2"),
    ("answers a repeated request again", AnswersTwice, None, ["replies"], "S-REQ-2"),
]


def start(server_class=None, connection_class=None):
    """A spec server (with one fault, if given) on a free port of this process; returns it and its Target."""
    path = f"/connect/linux/acme/{TOKEN}"
    server = (server_class or spec_server.Server)(path, hello=HELLO, idle_timeout=IDLE_TIMEOUT, drain_timeout=3.0,
                                                   out=open("/dev/null", "w"))
    if connection_class:
        server.connection_class = connection_class
    listener = socket.create_server(("127.0.0.1", 0))
    threading.Thread(target=server.serve, args=(listener,), daemon=True).start()
    port = listener.getsockname()[1]
    target = Target(f"ws://127.0.0.1:{port}{path}", push=server.queue, close=server.close_clients,
                    taken=lambda expected=None: server.taken_ids())
    return server, target, listener


def settings():
    return Settings(hello=HELLO, hello_authenticates=True, request=REQUEST, idle_timeout=IDLE_TIMEOUT)


def main(verbose=False):
    from check_server import ORDER
    problems = []
    _, target, listener = start()
    report = Checker(target, settings(), (lambda text: print(text, file=sys.stderr)) if verbose else None).run(ORDER)
    listener.close()
    print(render_text(report))
    failed = [row["id"] for row in report["statements"] if row["result"] == FAILED]
    if failed:
        problems.append(f"the correct spec server failed {failed}")
    for name, server_class, connection_class, steps, statement in FAULTS:
        _, target, listener = start(server_class, connection_class)
        report = Checker(target, settings()).run(steps)
        listener.close()
        row = next((r for r in report["statements"] if r["id"] == statement), None)
        caught = row is not None and row["result"] == FAILED
        print(f"{'caught' if caught else 'MISSED'}: a server that {name}: {statement} "
              f"{row['result'] if row else 'not reported'}{': ' + row['detail'] if row and row['detail'] else ''}")
        if not caught:
            problems.append(f"the fault '{name}' was not reported as {statement} failed")
    for problem in problems:
        print(f"self-test: {problem}", file=sys.stderr)
    print(f"self-test: {'passed' if not problems else 'FAILED'} ({len(FAULTS)} faults planted)")
    return 1 if problems else 0
