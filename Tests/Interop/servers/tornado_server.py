# SPDX-License-Identifier: Apache-2.0
"""The interop scenario (Tests/Interop/README.md) served by Python's `tornado`."""
import asyncio
import os
import signal

import tornado.web
import tornado.websocket

from scenario import Check, Scenario

scenario = Scenario()
check = None  # INTEROP_MODE=check: the conformance checker's server


class Peer:
    def __init__(self, handler):
        self.handler = handler

    async def send_text(self, text):
        await self.handler.write_message(text)

    async def send_fragments(self, parts):
        # write_message always sets FIN; tornado's own frame writer takes FIN and the opcode.
        protocol = self.handler.ws_connection
        for index, part in enumerate(parts):
            await protocol._write_frame(index == len(parts) - 1, 0x1 if index == 0 else 0x0, part)

    async def ping(self, payload):
        self.handler.ping(payload)

    async def close_going_away(self):
        self.handler.close(1001, "going away")

    async def close(self, code):
        self.handler.close(code, "going away")


class Connect(tornado.websocket.WebSocketHandler):
    def prepare(self):
        if not scenario.accepts(self.request.path):
            scenario.emit("rejected")
            self.set_status(401)
            self.finish("wrong token\n")

    def select_subprotocol(self, subprotocols):
        return scenario.select(subprotocols)

    def open(self, *_):
        headers = {name.lower(): value for name, value in self.request.headers.get_all()}
        self.connection = scenario.opened(headers)
        self.play = asyncio.ensure_future(check.opened(self.connection, Peer(self)) if check
                                          else scenario.play(self.connection, Peer(self)))

    async def on_message(self, message):
        if isinstance(message, str):
            await (check or scenario).received_text(self.connection, message)

    def on_pong(self, data):
        scenario.received_pong(self.connection, data)

    def on_close(self):
        self.play.cancel()
        if check:
            asyncio.ensure_future(check.ended(self.connection, self.close_code))


async def main():
    global check
    if os.environ.get("INTEROP_MODE") == "check":
        check = Check(scenario)
    app = tornado.web.Application([(r"/.*", Connect)], websocket_max_message_size=16 << 20)
    app.listen(scenario.port, address="127.0.0.1")
    stop = asyncio.get_running_loop().create_future()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set_result, None)
    await stop


asyncio.run(main())
