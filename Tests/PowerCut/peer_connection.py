# SPDX-License-Identifier: Apache-2.0
"""One daemon's connection to a test server of the power-cut tests (push_server.py,
stall_server.py), on a raw socket: the upgrade, the daemon's frames, and the answers every such
server gives (a close answered and the connection ended, pings answered, heartbeats echoed).
What a server does with the other texts is its `on_text`.
"""
import threading

from websocket_server import frame, unmasked_frame, upgrade_answer


class PeerConnection:
    def __init__(self, sock):
        self.sock = sock
        self.send_lock = threading.Lock()  # the reader's answers and the server's own sends
        self.open = True

    def send(self, opcode, payload):
        self.send_all([(opcode, payload)])

    def send_all(self, frames):
        """(opcode, payload) pairs in one write: a burst the daemon reads at once."""
        with self.send_lock:
            self.sock.sendall(b"".join(frame(opcode, payload) for opcode, payload in frames))

    def upgrade(self):
        """Reads the upgrade request and answers it; False when the daemon went first."""
        request = b""
        while b"\r\n\r\n" not in request:
            chunk = self.sock.recv(4096)
            if not chunk:
                return False
            request += chunk
        self.sock.sendall(upgrade_answer(request))
        return True

    def frames(self):
        """The daemon's frames (masked, unfragmented), as (opcode, payload), until EOF."""
        buffer = b""
        while True:
            while (parsed := unmasked_frame(buffer)) is not None:
                opcode, payload, buffer = parsed
                yield opcode, payload
            chunk = self.sock.recv(65536)
            if not chunk:
                return
            buffer += chunk

    def read(self):
        """Until the daemon closes: each text other than a heartbeat goes to `on_text`."""
        for opcode, payload in self.frames():
            if opcode == 8:  # close: answer it and end
                self.send(8, payload[:2])
                return
            if opcode == 9:
                self.send(10, payload)
                continue
            if opcode != 1:
                continue
            if payload == b"KA":
                self.send(1, payload)
                continue
            self.on_text(payload.decode("utf-8", "replace"))

    def on_text(self, text):
        raise NotImplementedError
