"""The interop scenario (Tests/Interop/README.md) for the Python stacks, apart from any library.

Each Python server program adapts its library to `Connection` (send a text, send fragments, ping,
close with 1001) and reports what it receives to `Scenario`; `Scenario.play` does the rest.
"""
import asyncio
import json
import os
import sys
import time

FRAGMENTED_BODY = "0123456789" * 300
FRAGMENTED = json.dumps({"id": "frag", "title": "fragmented", "body": FRAGMENTED_BODY}, separators=(",", ":"))


def push_text(index):
    return json.dumps({"id": f"p{index}", "title": f"push {index}", "body": f"interop push {index}"},
                      separators=(",", ":"))


def fragments(text):
    data = text.encode()
    return [data[:1000], data[1000:2000], data[2000:]]


class Scenario:
    def __init__(self):
        self.port = int(os.environ["INTEROP_PORT"])
        self.path = os.environ["INTEROP_PATH"]
        self.subprotocol = os.environ["INTEROP_SUBPROTOCOL"]
        count = int(os.environ["INTEROP_PUSHES"])
        self.half = count // 2
        self.messages = [("frag", FRAGMENTED)] + [(f"p{i}", push_text(i)) for i in range(1, count + 1)]
        self.acknowledged = set()
        self.connections = 0
        self.origin = time.monotonic()
        self.changed = asyncio.Condition()

    def emit(self, event, **fields):
        print(json.dumps({"event": event, "t": time.monotonic() - self.origin, **fields}), flush=True)

    def select(self, offered):
        """The subprotocol to answer with, or None."""
        return self.subprotocol if self.subprotocol in offered else None

    def opened(self, headers):
        """A connection was upgraded; `headers` maps lower-case names to values. Returns its number."""
        self.connections += 1
        self.emit("open", connection=self.connections, protocol=headers.get("sec-websocket-protocol"),
                  x_interop=headers.get("x-interop"), content_length=headers.get("content-length"),
                  transfer_encoding=headers.get("transfer-encoding"))
        return self.connections

    async def received_text(self, connection, text):
        if text.startswith("ack "):
            self.emit("ack", connection=connection, id=text[4:])
            async with self.changed:
                self.acknowledged.add(text[4:])
                self.changed.notify_all()
        else:
            self.emit("text", connection=connection, text=text)

    def received_pong(self, connection, payload):
        self.emit("pong", connection=connection, payload=payload.decode(errors="replace"))

    async def wait_acknowledged(self, ids):
        async with self.changed:
            await self.changed.wait_for(lambda: self.acknowledged.issuperset(ids))

    async def play(self, connection, peer):
        await peer.ping(f"ping-{connection}".encode())
        if connection == 1:
            first = self.messages[:self.half + 1]
            await self.send(peer, first)
            await self.wait_acknowledged([ident for ident, _ in first])
            await self.send(peer, self.messages[self.half + 1:])
            self.emit("closing", connection=connection)
            await peer.close_going_away()
        else:
            await self.send(peer, [m for m in self.messages if m[0] not in self.acknowledged])
            await self.wait_acknowledged([ident for ident, _ in self.messages])
            self.emit("complete", connection=connection)

    @staticmethod
    async def send(peer, messages):
        for ident, text in messages:
            if ident == "frag":
                await peer.send_fragments(fragments(text))
            else:
                await peer.send_text(text)


def log(message):
    print(message, file=sys.stderr, flush=True)
