# SPDX-License-Identifier: Apache-2.0
"""The interop scenario (Tests/Interop/README.md) for the Python stacks, apart from any library.

Each Python server program adapts its library to `Connection` (send a text, send fragments, ping,
close with 1001) and reports what it receives to `Scenario`; `Scenario.play` does the rest.
"""
import asyncio
import json
import os
import sys
import threading
import time
from urllib.parse import unquote

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

    def accepts(self, target):
        """The request's path names the configured one, each segment compared percent-decoded."""
        return segments(target) == segments(self.path)

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


def segments(target):
    return [unquote(s) for s in target.split("?", 1)[0].split("/")]


def log(message):
    print(message, file=sys.stderr, flush=True)


class Check:
    """INTEROP_MODE=check: the conformance checker's server (Tests/Interop/README.md). Pushes come
    as `push TEXT` lines on standard input and are kept until acknowledged (`ack {id}`, the
    matrix's ack_text), sent in order, again on the next connection; `close CODE` closes once
    what was sent is acknowledged; a client's message (a JSON object with a string id) is taken
    once and acknowledged each time with `received message {id}`; the first text frame is the
    hello; a client's 1009 sets the largest push it was sent aside."""

    def __init__(self, scenario):
        self.scenario = scenario
        self.pushes = []      # [id, text], in order
        self.acked, self.set_aside, self.taken = set(), set(), set()
        self.peers = {}       # connection -> {"peer", "sent", "waiting", "first", "closing"}
        self.current = None
        self.loop = asyncio.get_running_loop()
        threading.Thread(target=self._read_commands, daemon=True).start()

    def _read_commands(self):
        for line in sys.stdin:
            verb, _, rest = line.rstrip("\n").partition(" ")
            self.loop.call_soon_threadsafe(lambda v=verb, r=rest: asyncio.ensure_future(self.command(v, r)))

    async def command(self, verb, rest):
        if verb == "push":
            try:
                ident = json.loads(rest).get("id")
            except (ValueError, AttributeError):
                ident = None
            self.pushes.append([ident, rest])
            if self.current is not None:
                await self.deliver(self.current)
        elif verb == "close" and self.current is not None:
            connection = self.current
            self.peers[connection]["close_code"] = int(rest or 1001)
            await self.finish_close(connection)
            # At most a few seconds for the acknowledgements; then the close goes anyway.
            self.loop.call_later(5, lambda: asyncio.ensure_future(self.finish_close(connection, timed_out=True)))

    async def opened(self, connection, peer):
        self.peers[connection] = {"peer": peer, "sent": set(), "waiting": [], "first": True, "close_code": None,
                                  "closed": False}
        self.current = connection
        await self.deliver(connection)

    async def deliver(self, connection):
        state = self.peers[connection]
        if state["close_code"] is not None:
            return  # closing: nothing new is sent
        elsewhere = {i for c, s in self.peers.items() if c != connection for i in s["waiting"]}
        for index, (ident, text) in enumerate(self.pushes):
            if index in self.acked or index in self.set_aside or index in state["sent"] or index in elsewhere:
                continue
            state["sent"].add(index)
            state["waiting"].append(index)
            await state["peer"].send_text(text)

    async def received_text(self, connection, text):
        state = self.peers[connection]
        if state["first"]:
            state["first"] = False
            self.scenario.emit("hello", connection=connection)
            return
        if text.startswith("ack "):
            ident = text[4:]
            for index in state["waiting"]:
                if self.pushes[index][0] == ident:
                    state["waiting"].remove(index)
                    self.acked.add(index)
                    self.scenario.emit("ack", connection=connection, id=ident)
                    break
            await self.finish_close(connection)
            return
        try:
            message = json.loads(text)
        except ValueError:
            return
        if isinstance(message, dict) and isinstance(message.get("id"), str):
            if message["id"] not in self.taken:
                self.taken.add(message["id"])
                self.scenario.emit("taken", id=message["id"])
            await state["peer"].send_text(f"received message {message['id']}")

    async def finish_close(self, connection, timed_out=False):
        state = self.peers.get(connection)
        if state and state["close_code"] is not None and not state["closed"] and (timed_out or not state["waiting"]):
            state["closed"] = True
            await state["peer"].close(state["close_code"])

    async def ended(self, connection, code):
        state = self.peers.pop(connection, None)
        if state and code in (1007, 1009) and state["waiting"]:
            largest = max(state["waiting"], key=lambda index: len(self.pushes[index][1]))
            self.set_aside.add(largest)
        if self.current == connection:
            self.current = None
        for other in list(self.peers):
            await self.deliver(other)
