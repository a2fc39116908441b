# SPDX-License-Identifier: Apache-2.0
"""The interop scenario (Tests/Interop/README.md) served by Python's `websockets` (asyncio API)."""
import asyncio
import os
import signal
from http import HTTPStatus

from websockets.asyncio.server import serve

from scenario import Check, Scenario

scenario = Scenario()
check = None  # INTEROP_MODE=check: the conformance checker's server


class Peer:
    def __init__(self, websocket, connection):
        self.websocket = websocket
        self.connection = connection

    async def send_text(self, text):
        await self.websocket.send(text)

    async def send_fragments(self, parts):
        # An iterable of str makes websockets send one frame per item: a fragmented message.
        await self.websocket.send(part.decode() for part in parts)

    async def ping(self, payload):
        # websockets resolves the waiter only for a pong that carries this ping's payload.
        waiter = await self.websocket.ping(payload)

        def answered(future):
            if not future.cancelled() and future.exception() is None:
                scenario.received_pong(self.connection, payload)
        waiter.add_done_callback(answered)

    async def close_going_away(self):
        await self.websocket.close(1001, "going away")

    async def close(self, code):
        await self.websocket.close(code, "going away")


def process_request(connection, request):
    if not scenario.accepts(request.path):
        scenario.emit("rejected")
        return connection.respond(HTTPStatus.UNAUTHORIZED, "wrong token\n")
    return None


async def handler(websocket):
    headers = {name.lower(): value for name, value in websocket.request.headers.raw_items()}
    connection = scenario.opened(headers)
    if check:
        await check.opened(connection, Peer(websocket, connection))
        try:
            async for message in websocket:
                if isinstance(message, str):
                    await check.received_text(connection, message)
        finally:
            await check.ended(connection, websocket.close_code)
        return
    play = asyncio.create_task(scenario.play(connection, Peer(websocket, connection)))
    try:
        async for message in websocket:
            if isinstance(message, str):
                await scenario.received_text(connection, message)
    finally:
        play.cancel()


async def main():
    global check
    if os.environ.get("INTEROP_MODE") == "check":
        check = Check(scenario)
    stop = asyncio.get_running_loop().create_future()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set_result, None)
    async with serve(handler, "127.0.0.1", scenario.port, process_request=process_request,
                     select_subprotocol=lambda _, offered: scenario.select(offered),
                     max_size=None, ping_interval=None):
        await stop


asyncio.run(main())
