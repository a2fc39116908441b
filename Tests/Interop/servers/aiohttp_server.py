# SPDX-License-Identifier: Apache-2.0
"""The interop scenario (Tests/Interop/README.md) served by Python's `aiohttp`."""
import asyncio
import os
import signal
import struct

from aiohttp import WSMsgType, web

from scenario import Check, Scenario

scenario = Scenario()
check = None  # INTEROP_MODE=check: the conformance checker's server


class Peer:
    def __init__(self, websocket, transport):
        self.websocket = websocket
        self.transport = transport

    async def send_text(self, text):
        await self.websocket.send_str(text)

    async def send_fragments(self, parts):
        # aiohttp sets FIN on every frame it writes and has no API for fragments: these three
        # server frames (unmasked, 126-length form) go to its transport as they are on the wire.
        for index, part in enumerate(parts):
            first_byte = (0x80 if index == len(parts) - 1 else 0) | (0x1 if index == 0 else 0x0)
            self.transport.write(struct.pack("!BBH", first_byte, 126, len(part)) + part)

    async def ping(self, payload):
        await self.websocket.ping(payload)

    async def close_going_away(self):
        await self.websocket.close(code=1001, message=b"going away")

    async def close(self, code):
        await self.websocket.close(code=code, message=b"going away")


async def connect(request):
    if not scenario.accepts(request.raw_path):
        scenario.emit("rejected")
        return web.Response(status=401, text="wrong token\n")
    offered = [p.strip() for p in request.headers.get("Sec-WebSocket-Protocol", "").split(",")]
    protocols = [scenario.subprotocol] if scenario.select(offered) else []
    # autoping off so that pongs reach us; the client's pings are then answered below.
    websocket = web.WebSocketResponse(protocols=protocols, autoping=False, max_msg_size=0, heartbeat=None)
    await websocket.prepare(request)
    connection = scenario.opened({name.lower(): value for name, value in request.headers.items()})
    peer = Peer(websocket, request.transport)
    play = asyncio.create_task(check.opened(connection, peer) if check else scenario.play(connection, peer))
    received = check.received_text if check else scenario.received_text
    try:
        async for message in websocket:
            if message.type == WSMsgType.TEXT:
                await received(connection, message.data)
            elif message.type == WSMsgType.PING:
                await websocket.pong(message.data)
            elif message.type == WSMsgType.PONG:
                scenario.received_pong(connection, message.data)
    finally:
        play.cancel()
        if check:
            await check.ended(connection, websocket.close_code)
    return websocket


async def main():
    global check
    if os.environ.get("INTEROP_MODE") == "check":
        check = Check(scenario)
    app = web.Application()
    app.router.add_get("/{tail:.*}", connect)
    runner = web.AppRunner(app, handle_signals=False)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", scenario.port).start()
    stop = asyncio.get_running_loop().create_future()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set_result, None)
    await stop
    await runner.cleanup()


asyncio.run(main())
