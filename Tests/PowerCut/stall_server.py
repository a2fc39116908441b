# SPDX-License-Identifier: Apache-2.0
"""The server of the stalled-disk test (stall.py): a WebSocket server on loopback, on a raw
socket, that sends a push only when the test asks (push_server.py streams them; here the test
must know which pushes are in flight when the disk stalls) and writes down, with the time it
arrived, every acknowledgement that comes back.

- Pushes: `{"id":<id>,"title":…,"body":…}`, on the latest connection, by `push(id)`.
- The daemon's acknowledgements (`ack_text = "received message {id}"`): (connection, id,
  time.monotonic() on arrival) in `acks`, so that the test can tell one sent before the commit
  could have finished from one sent after, and a duplicate from a redelivery.
- Heartbeats (`KA`) are echoed, pings answered, a close answered and the connection ended; any
  other text is kept in `other` (the test expects none).
One reader thread per connection; one lock guards the records.
"""
import json
import socket
import threading
import time

from peer_connection import PeerConnection

ACK_TEXT = "received message {id}"
ACK_PREFIX = ACK_TEXT.split("{", 1)[0]


class Connection(PeerConnection):
    def __init__(self, server, sock, number):
        super().__init__(sock)
        self.server, self.number = server, number

    def on_text(self, text):
        server = self.server
        with server.lock:
            if text.startswith(ACK_PREFIX):
                server.acks.append((self.number, text[len(ACK_PREFIX):], time.monotonic()))
            else:
                server.other.append(text)

    def serve(self):
        try:
            if not self.upgrade():
                return
            with self.server.lock:
                self.server.connections.append(self)
            self.read()
        except OSError:
            pass
        finally:
            self.open = False
            self.sock.close()


class StallServer:
    """`port` is where the daemon connects; `push(id)` sends one push on the latest connection."""

    def __init__(self):
        self.lock = threading.Lock()
        self.acks = []         # (connection number, push id, monotonic arrival time)
        self.other = []        # texts that are neither heartbeats nor acknowledgements
        self.connections = []  # upgraded connections, in order
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(4)
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
            threading.Thread(target=Connection(self, sock, attempts).serve, daemon=True).start()

    def latest(self):
        """The last connection upgraded and still open, or None."""
        with self.lock:
            live = [connection for connection in self.connections if connection.open]
            return live[-1] if live else None

    def push(self, message_id):
        """Sends push `message_id` on the latest open connection; returns that connection's number."""
        connection = self.latest()
        if connection is None:
            raise AssertionError(f"no open connection to push {message_id} on")
        text = json.dumps({"id": message_id, "title": f"Stall {message_id}",
                           "body": "sent while the disk may be stuck"})
        connection.send(1, text.encode())
        return connection.number

    def acks_of(self, message_id):
        """(connection number, arrival time) of each acknowledgement of `message_id`."""
        with self.lock:
            return [(number, at) for number, ack, at in self.acks if ack == message_id]

    def connection_count(self):
        with self.lock:
            return len(self.connections)

    def close(self):
        self.listener.close()
        with self.lock:
            for connection in self.connections:
                connection.open = False
                try:
                    connection.sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
