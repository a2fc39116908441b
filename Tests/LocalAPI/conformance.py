#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Conformance of the daemon's local API to its own introspection. The claim checked: a client
built only from GetInterfaceDescription calls every method with valid and invalid parameters,
and every reply and error it gets is declared in the interface it called.

The client is PyPI's varlink (31.0.0, pure Python, fetched once into
.build/local-api-conformance/), a client nobody here wrote; the checker (checker.py) learns the
interfaces from the running daemon alone. The daemon runs in a temporary directory against a
raw WebSocket server on loopback (Tests/Hostile/raw_peer.py) that has delivered a few pushes, so
that there is something to list, show, mark and subscribe to.

--self-test runs the same checker against an in-process service (fake_service.py) serving the
interface files of packaging/varlink/ with two faults planted, an undeclared error and a reply
missing a required field, and passes only if the checker reports both and nothing else.

Prints a line per method and a summary; exits 1 on any violation, naming it.
Usage: conformance.py --daemon PATH | --self-test
"""
import argparse
import glob
import itertools
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, os.pardir, os.pardir))
PYPI_VARLINK_VERSION = "31.0.0"
PYPI_CACHE = os.path.join(ROOT, ".build", "local-api-conformance", f"pypi-{PYPI_VARLINK_VERSION}")


def pypi_varlink():
    """PyPI's varlink wheel, downloaded and unpacked once (not installed), put on sys.path; the
    same way packaging/tests/system-test-gate.sh fetches it."""
    if not os.path.isdir(os.path.join(PYPI_CACHE, "varlink")):
        os.makedirs(PYPI_CACHE, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--dest", PYPI_CACHE,
                        f"varlink=={PYPI_VARLINK_VERSION}"], check=True, stdout=subprocess.DEVNULL)
        wheel, = glob.glob(os.path.join(PYPI_CACHE, "varlink-*.whl"))
        subprocess.run([sys.executable, "-m", "zipfile", "-e", wheel, PYPI_CACHE], check=True)
    sys.path.insert(0, PYPI_CACHE)


pypi_varlink()
sys.path[1:1] = [os.path.join(ROOT, "Tests", "support"), os.path.join(ROOT, "Tests", "Hostile")]
from checker import Checker  # noqa: E402
from fake_service import FakeService  # noqa: E402
from intrapush_test_support import wait_for  # noqa: E402
from raw_peer import Daemon, RawServer, accept_upgrade, frame  # noqa: E402
from websocket_server import unmasked_frame  # noqa: E402

PUSHES = [{"id": f"conformance-push-{n}", "title": f"conformance push {n}", "body": "b", "priority": n}
          for n in range(1, 6)]
ACK_PREFIX = "received message "
# Acknowledgements naming the push (the default names none), and requests that give up soon.
DAEMON_SETTINGS = 'ack_text = "received message {id}"\nrequest_timeout = "2s"\n'
DAY_MS = 86_400_000


# --- plausible values, by parameter name ----------------------------------------------------------

def outbox_messages():
    """The `message` of Outbox.Send and Request: a JSON object with a fresh id (an id still
    waiting is refused as a duplicate). The minimal call's asks the server to answer it, so that
    a Request's reply is seen; the full call's (with timeout_ms) does not, so that its expiry is.
    (Send's is answered too; naming no waiting request, that answer is stored as a push.)"""
    count = itertools.count(1)
    return lambda variant: json.dumps({"id": f"conformance-out-{next(count)}", "answer": variant == "minimal"})


def plausible_values(ids):
    """Values the checker uses for parameters of these names, where a made-up value of the type
    would select nothing or be refused: ids that exist, a time range around now, a short
    request timeout. Everything else it makes up from the type."""
    now = int(time.time() * 1000)
    return {"id": ids[0], "ids": ids[:2], "after_id": 0, "last_id": ids[-1], "since": 0, "until": now + DAY_MS,
            "priority": 1, "limit": 10, "grep": "conformance", "timeout_ms": 300, "message": outbox_messages()}


# --- the daemon's world ---------------------------------------------------------------------------

class PushServer:
    """The on-premises server as the daemon meets it: delivers PUSHES on each connection and more
    on demand, answers heartbeats (text and ping) so that the daemon keeps the connection, and
    answers the outbox messages that ask for it (`"answer": true`) as replies to their request."""

    def __init__(self, pushes):
        self.pushes = pushes
        self.acknowledged = set()
        self.live = 0
        self._connection = None
        self._lock = threading.Lock()
        self.raw = RawServer(self._serve)
        self.port = self.raw.port

    def _serve(self, connection, request):
        accept_upgrade(connection, request)
        with self._lock:
            self._connection = connection
        for push in self.pushes:
            self._send(0x1, json.dumps(push))
        buffer = b""
        while chunk := connection.recv(65536):
            buffer += chunk
            while (parsed := unmasked_frame(buffer)) is not None:
                opcode, payload, buffer = parsed
                self._answer(opcode, payload)

    def _answer(self, opcode, payload):
        if opcode == 0x9:
            return self._send(0xA, payload)
        if opcode != 0x1:
            return
        text = payload.decode("utf-8", "replace")
        if text.startswith(ACK_PREFIX):
            self.acknowledged.add(text[len(ACK_PREFIX):])
        elif text == "KA":
            self._send(0x1, "KA")
        else:
            try:
                message = json.loads(text)
            except ValueError:
                return
            if isinstance(message, dict) and message.get("answer") is True:
                self._send(0x1, json.dumps({"id": message.get("id"), "reply": "conformance pong"}))

    def _send(self, opcode, payload):
        with self._lock:
            if self._connection is not None:
                self._connection.sendall(frame(opcode, payload.encode() if isinstance(payload, str) else payload))

    def push_live(self):
        """One push now: a subscription that has been silent has something to say."""
        self.live += 1
        self._send(0x1, json.dumps({"id": f"conformance-live-{self.live}", "title": f"conformance live {self.live}"}))

    def close(self):
        self.raw.close()


def stored_ids(database):
    """The rows the daemon stored, read from its database directly (not through the API under test)."""
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as db:
        return [row[0] for row in db.execute("SELECT id FROM notifications ORDER BY id")]


def check_daemon(binary):
    """The checker against the release daemon, once it has stored every push; its violations."""
    with tempfile.TemporaryDirectory(prefix="intrapush-conformance-") as directory:
        server = PushServer(PUSHES)
        daemon = Daemon(binary, server.port, directory, extra=DAEMON_SETTINGS)
        try:
            socket_path = daemon.database + ".sock"
            wanted = {push["id"] for push in PUSHES}
            wait_for("every push acknowledged", lambda: wanted <= server.acknowledged, timeout=20)
            wait_for("the local API's socket", lambda: os.path.exists(socket_path))
            print(f"conformance: {binary}, {len(PUSHES)} pushes stored; the local API at {socket_path}")
            violations = Checker("unix:" + socket_path, plausible_values(stored_ids(daemon.database)),
                                 on_silence=server.push_live).run()
            if not daemon.alive:
                raise AssertionError(f"the daemon exited during the check:\n{daemon.text()[-2000:]}")
            return violations
        except AssertionError:
            print(daemon.text()[-2000:], file=sys.stderr)
            raise
        finally:
            daemon.stop()
            server.close()


# --- the self-test --------------------------------------------------------------------------------

# The faults the self-test's service plants: Status answers an error its interface does not
# declare; Send's reply lacks message_id, which is not optional.
PLANTED = {
    "io.intrapush.Daemon.Status": lambda reply: {"error": "io.intrapush.Daemon.Overheated",
                                                  "parameters": {"message": "planted"}},
    "io.intrapush.Outbox.Send": lambda reply: {"parameters": {k: v for k, v in reply.items() if k != "message_id"}},
}
EXPECTED = {("io.intrapush.Daemon.Status", "undeclared-error"), ("io.intrapush.Outbox.Send", "reply-type")}


def self_test():
    """The checker against the planted faults: it must report both, and nothing else."""
    descriptions = []
    for path in sorted(glob.glob(os.path.join(ROOT, "packaging", "varlink", "*.varlink"))):
        with open(path) as file:
            descriptions.append(file.read())
    with tempfile.TemporaryDirectory(prefix="intrapush-conformance-self-test-") as directory:
        service = FakeService(os.path.join(directory, "service.sock"), descriptions, PLANTED)
        try:
            print("conformance self-test: a service with an undeclared error and a reply missing a field planted")
            violations = Checker("unix:" + service.server_address, plausible_values([1, 2]),
                                 out=lambda line: print("  | " + line)).run()
        finally:
            service.close()
    found = {(violation.method, violation.kind) for violation in violations}
    if found != EXPECTED:
        print(f"conformance self-test: FAILED: reported {sorted(found)}, planted {sorted(EXPECTED)}")
        return False
    print(f"conformance self-test: passed: the checker reported both planted faults ({len(violations)} calls "
          "met them) and nothing else")
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--daemon", help="the intrapushd binary to check")
    mode.add_argument("--self-test", action="store_true", help="show that the checker can fail")
    arguments = parser.parse_args()
    started = time.monotonic()
    if arguments.self_test:
        passed = self_test()
    else:
        passed = not check_daemon(os.path.abspath(arguments.daemon))
        print(f"conformance: {'passed' if passed else 'FAILED'}")
    print(f"({time.monotonic() - started:.1f} s)")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
