# SPDX-License-Identifier: Apache-2.0
"""The server of the power-cut test (powercut.py): a WebSocket server on loopback, on a raw
socket, that streams pushes to every daemon that connects and writes down what comes back.

- Pushes: `{"id":"p-<round>-<n>","title":"T<n>","body":"…"}`, one every 1–2 ms, at most WINDOW
  of them unacknowledged (so that a slow daemon is not buried), numbered across connections;
  now and then a burst fills the window at once, so that the daemon commits batches of many
  pushes between its single ones. With `one_burst`, each connection gets one burst of that many
  pushes at once, past the window, and nothing more: the burst rounds of powercut.py, whose
  batches are large enough to be synced beside the push loop (StoreWorker.syncBesideFrom).
  With `manual`, nothing is pushed but what `send(count)` sends at once on the latest
  connection: the restart rounds (restart_rounds.py) shape their own traffic.
- The daemon's acknowledgements (`ack_text = "received message {id}"`): the ids in `acked`.
- Messages from the outbox (`intrapush send`, read receipts: JSON objects): their ids in
  `received`, with the connection they came on; each is acknowledged with UPSTREAM_ACK (the
  daemon's `upstream_ack_text`), so that the daemon marks it delivered. A read receipt (made from
  RECEIPT_TEXT, the daemon's `read_receipt_text`: `"type":"read"`) also goes into `receipts`, its
  id to the message id of the push it says was read.
- Heartbeats (`KA`) are echoed, pings answered, a close answered and the connection ended.
Each connection has a reader thread and a pusher thread; one lock guards the records.
"""
import json
import random
import socket
import threading
import time

from peer_connection import PeerConnection

ACK_TEXT = "received message {id}"
UPSTREAM_ACK = "delivered {id}"  # not ACK_TEXT: the two directions stay apart in the logs
# No `id` member: the daemon gives each receipt a UUID of its own, so that a receipt sent again
# after a reconnect is told from another receipt for the same push.
RECEIPT_TEXT = '{"type":"read","message_id":"{message_id}","by":"{user}","read_at":{read_at}}'
WINDOW = 128
BURST_CHANCE = 0.01  # per 1–2 ms: a burst every 150 ms or so
BODY = "power cut " * 10


class Connection(PeerConnection):
    def __init__(self, server, sock, number):
        super().__init__(sock)
        self.server, self.number = server, number
        self.sent = self.acks = 0  # pushes written on this connection, acknowledgements read

    def on_text(self, text):
        server = self.server
        if text.startswith("received message "):
            with server.lock:
                server.acked.add(text[len("received message "):])
                self.acks += 1
        elif text.startswith("{"):
            message = json.loads(text)
            message_id = message.get("id")
            with server.lock:
                server.received.append((self.number, message_id))
                if message.get("type") == "read":
                    server.receipts[message_id] = message.get("message_id")
            self.send(1, UPSTREAM_ACK.format(id=message_id).encode())

    def push(self):
        server, rng = self.server, random.Random(self.number)
        if server.manual:
            return
        while self.open and server.pushing:
            burst = rng.random() < BURST_CHANCE
            with server.lock:
                count = max(0, WINDOW - (self.sent - self.acks))
                count = server.one_burst or (count if burst else min(count, 1))
                first = server.pushed + 1
                server.pushed += count
                self.sent += count
            if count:
                self.send_numbered(first, count)
            if server.one_burst:
                return
            time.sleep(rng.uniform(0.001, 0.002))

    def send_numbered(self, first, count):
        self.send_all([(1, json.dumps({"id": f"p-{self.server.round}-{number}", "title": f"T{number}",
                                       "body": BODY}).encode()) for number in range(first, first + count)])

    def serve(self):
        try:
            if not self.upgrade():
                return
            with self.server.lock:
                self.server.connections.append(self)
            threading.Thread(target=self.guarded, args=(self.push,), daemon=True).start()
            self.read()
        except OSError:
            pass
        finally:
            self.open = False
            self.sock.close()

    def guarded(self, work):
        try:
            work()
        except OSError:
            self.open = False  # the daemon went; read() sees the end and closes the socket


class PushServer:
    """One per round (`round` names its pushes); `port` is where the daemon connects."""

    def __init__(self, round_number, one_burst=0, manual=False):
        self.round = round_number
        self.one_burst = one_burst  # if > 0: each connection gets one burst of that many, then none
        self.manual = manual  # if true: only what `send` sends
        self.lock = threading.Lock()
        self.acked = set()      # push ids the daemon acknowledged
        self.received = []      # (connection number, message id) of outbox messages
        self.receipts = {}      # read receipts: their id -> the message id of the push read
        self.connections = []   # upgraded connections, in order
        self.pushed = 0
        self.pushing = True
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(16)
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        attempts = 0
        while True:
            try:
                sock, _ = self.listener.accept()
            except OSError:
                return
            attempts += 1
            connection = Connection(self, sock, attempts)
            threading.Thread(target=connection.serve, daemon=True).start()

    def latest(self):
        """The number of the last connection upgraded (0: none yet)."""
        with self.lock:
            return self.connections[-1].number if self.connections else 0

    def acked_on(self, number):
        """How many pushes connection `number` acknowledged."""
        with self.lock:
            return sum(c.acks for c in self.connections if c.number == number)

    def open_connections(self):
        with self.lock:
            return sum(connection.open for connection in self.connections)

    def send(self, count):
        """Writes `count` pushes at once on the latest connection; returns their ids."""
        with self.lock:
            connection = self.connections[-1]
            first = self.pushed + 1
            self.pushed += count
            connection.sent += count
        try:
            connection.send_numbered(first, count)
        except OSError:
            return set()  # the daemon went: nothing was sent
        return {f"p-{self.round}-{number}" for number in range(first, first + count)}

    def acked_ids(self):
        with self.lock:
            return set(self.acked)

    def received_ids(self, since_connection=0):
        """Outbox message ids received on connections numbered above `since_connection`."""
        with self.lock:
            return {message_id for number, message_id in self.received
                    if number > since_connection}

    def receipts_received(self):
        """{receipt id: the push's message id} of the read receipts received (a receipt sent
        again after a reconnect is one)."""
        with self.lock:
            return dict(self.receipts)

    def close(self):
        self.pushing = False
        self.listener.close()
        with self.lock:
            for connection in self.connections:
                connection.open = False
                try:
                    connection.sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
