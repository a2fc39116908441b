# SPDX-License-Identifier: Apache-2.0
"""The servers of the checker's self-test (selftest.py): spec_server.py's `Server` or `Connection`
with one method replaced. FAULTS each break a statement the checker must report failed; HOLDS are
correct servers the checker must not blame (what an earlier checker got wrong)."""
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "Interop" / "servers"))
import spec_server  # noqa: E402

TOKEN = "good-token"


class ForgetsUnacknowledged(spec_server.Server):
    """What a connection was sent and did not acknowledge is forgotten when it ends."""

    def connection_ended(self, connection):
        with self.lock:
            connection.host.acknowledged.update(connection.unacknowledged)
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
    """Closes when asked, without waiting for what it sent to be acknowledged (a push unacknowledged)."""

    def close_when_acknowledged(self, code, reason=""):
        self.close(code, reason)


class ClosesWith1000(spec_server.Connection):
    """Closes, when asked to go away, with 1000."""

    def close_when_acknowledged(self, code, reason=""):
        super().close_when_acknowledged(1000, reason)


class ResendsOnTheConnection(spec_server.Server):
    """Sends again, on the same connection, what waits for its acknowledgement, with each new push."""

    def pending(self, connection):
        host = connection.host
        return [p for p in self.pushes if host.wants(p) and p.seq not in host.acknowledged and p.seq not in host.set_aside]


class KeepsTheOversized(spec_server.Server):
    """Sends a push the client closed with 1009 for again, and again."""

    def closed_by_client(self, connection, code):
        pass


class AnswersTwice(spec_server.Server):
    """Answers a request each time it comes, repeats included."""

    def take(self, host, ident, message):
        with self.lock:
            host.taken.pop(ident, None)
        super().take(host, ident, message)


class RefusesBadEscapesWith401(spec_server.Connection):
    """Takes a path it cannot percent-decode for a wrong token."""

    def accepts(self, target, headers):
        try:
            return super().accepts(target, headers)
        except ValueError:
            return 401, "Unauthorized"


class SelectsWhateverIsOffered(spec_server.Connection):
    """Selects the first subprotocol offered, one it does not speak too."""

    def select_subprotocol(self, offered, subprotocol):
        return offered[0] if offered else None


class ClosesBadHelloWith1000(spec_server.Connection):
    """Closes a connection whose hello it refuses with 1000, no reason."""

    def on_text(self, text):
        if self.first_text and self.server.hello is not None and text != self.server.hello:
            self.first_text = False
            self.close(1000)
            return
        super().on_text(text)


class DropsIdleSilently(spec_server.Connection):
    """Drops a silent client's TCP connection, no close frame."""

    def watch_idle(self):
        while not self.ended:
            time.sleep(0.05)
            if time.monotonic() - self.last_heard > self.server.idle_timeout:
                self.drop()
                return


class MixesHostsAcknowledgements(spec_server.Server):
    """Keys acknowledgements by organisation: one host's acknowledgement clears every host's copy."""

    def acknowledged_on(self, connection):
        push = super().acknowledged_on(connection)
        if push is not None:
            with self.lock:
                for host in self.hosts.values():
                    host.acknowledged.add(push.seq)
        return push


class KeepsBothConnections(spec_server.Server):
    """A host's second connection leaves its first open (and in flight)."""

    def activate(self, connection):
        with self.lock:
            connection.host.current = self.current = connection
            connection.deliver_pending()


class PushesToEveryHost(spec_server.Server):
    """Sends a push addressed to one host to every host."""

    def queue(self, text, ident=None, frames=None, to=None):
        return super().queue(text, ident, frames)


class ByOrderCompat(spec_server.Connection):
    """The compatibility profile's ack_text `received message {id}`, matched by order (Appendix A)."""

    def on_text(self, text):
        if not self.first_text and text.startswith(spec_server.ACK_TEXT + " "):
            text = spec_server.ACK_TEXT
        super().on_text(text)


class ReadsAckIdsCompat(spec_server.Connection):
    """`received message {id}` read by its id; an empty id names no push, and is ignored."""

    def on_text(self, text):
        if self.first_text or not text.startswith(spec_server.ACK_TEXT + " "):
            return super().on_text(text)
        ident = text[len(spec_server.ACK_TEXT) + 1:]
        with self.server.lock:
            for seq in list(self.unacknowledged):
                if ident and self.server.pushes[seq - 1].id == ident:
                    self.unacknowledged.remove(seq)
                    self.host.acknowledged.add(seq)
                    break
        self.finish_drain()


class TokenInHeader(spec_server.Connection):
    """The token travels in `Authorization: Bearer TOKEN`, the path has none."""

    def accepts(self, target, headers):
        if headers.get("authorization") != f"Bearer {TOKEN}":
            return 401, "Unauthorized"
        return super().accepts(target, headers)


class IgnoresTheHeaderToken(spec_server.Connection):
    """The path without a token, and the Authorization header not read: any token goes."""


def blocking_close(server, target):
    """A close hook that returns once the server closed (after the last acknowledgement)."""
    def close(code):
        server.close_clients(code)
        deadline = time.monotonic() + 10
        while server.open_connections() and time.monotonic() < deadline:
            time.sleep(0.02)
    target.close = close
    return target


def header_token(server, target):
    target.url = target.url.rsplit("/", 1)[0]
    target.token = TOKEN
    server.path = server.path.rsplit("/", 1)[0]
    return target


HEADER = {"headers": [("Authorization", f"Bearer {TOKEN}")]}
COMPAT = {"ack_text": "received message {id}"}
FAST_IDLE = {"idle_timeout": 0.5}

# (a server that …, Server class, Connection class, steps, statement, server's options, checker's
# settings, a change to the Target)
FAULTS = [
    ("forgets what was not acknowledged at a reconnect", ForgetsUnacknowledged, None, ["delivery"], "S-ACK-1"),
    ("acknowledges messages it never took", None, AcknowledgesUnstored, ["messages"], "S-OUT-4"),
    ("ignores the hello", None, IgnoresHello, ["hello"], "S-HELLO-2"),
    ("takes any text for an acknowledgement", None, AcknowledgesAnyText, ["not_acknowledgements"], "S-ACK-3"),
    ("closes while a push is unacknowledged", None, ClosesAtOnce, ["server_close"], "S-CLOSE-2"),
    ("closes with 1000 when going away", None, ClosesWith1000, ["server_close"], "S-CLOSE-3"),
    ("sends a push again on its connection", ResendsOnTheConnection, None, ["no_resend"], "S-ACK-5"),
    ("sends a push the client cannot take forever", KeepsTheOversized, None, ["oversized"], "S-SIZE-2"),
    ("answers a repeated request again", AnswersTwice, None, ["replies"], "S-REQ-2"),
    ("refuses a malformed %-escape with 401", None, RefusesBadEscapesWith401, ["percent_decoding"], "S-HS-9"),
    ("selects a subprotocol it does not speak", None, SelectsWhateverIsOffered, ["subprotocol"], "S-HS-10"),
    ("closes on a hello with a wrong token with 1000", None, ClosesBadHelloWith1000, ["hello_token"], "S-HELLO-3"),
    ("drops a silent client without a close frame", None, DropsIdleSilently, ["idle"], "S-HB-4"),
    ("waits for the hello for ever", None, None, ["hello_timeout"], "S-HELLO-4", {"hello_timeout": 3600.0}, {}),
    ("drops a silent client after 1.5 x heartbeat_interval", None, None, ["idle"], "S-HB-3", FAST_IDLE, FAST_IDLE),
    ("ignores the token in the Authorization header", None, IgnoresTheHeaderToken, ["wrong_token"], "S-HS-5", {},
     HEADER, header_token),
    ("reads an empty id in an acknowledgement as no push", None, ReadsAckIdsCompat, ["empty_id_ack"], "S-ACK-8", {},
     COMPAT),
    ("keys acknowledgements by organisation, not host", MixesHostsAcknowledgements, None, ["hosts"], "S-HOST-2"),
    ("keeps a host's first connection open beside its second", KeepsBothConnections, None, ["host_twice"], "S-HOST-5"),
    ("sends a push to one host to every host", PushesToEveryHost, None, ["host_push"], "S-HOST-4"),
]

HOLDS = [
    ("whose close hook returns once it closed", None, None, ["server_close"], "S-CLOSE-2", {}, {}, blocking_close),
    ("that takes the token in the Authorization header", None, TokenInHeader, ["wrong_token"], "S-HS-5", {}, HEADER,
     header_token),
    ("of the compatibility profile, acknowledgements by order", None, ByOrderCompat, ["empty_id_ack"], "S-ACK-8", {},
     COMPAT),
]


def spread(entry):
    """An entry with its optional parts filled: server options, settings, a change to the Target."""
    return tuple(entry) + ({}, {}, None)[len(entry) - 5:]

