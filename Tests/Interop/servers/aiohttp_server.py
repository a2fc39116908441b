"""The interop scenario (Tests/Interop/README.md) served by Python's `aiohttp`."""
import asyncio
import signal
import struct

from aiohttp import WSMsgType, web

from scenario import Scenario

scenario = Scenario()


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


async def connect(request):
    if request.raw_path != scenario.path:
        scenario.emit("rejected")
        return web.Response(status=401, text="wrong token\n")
    offered = [p.strip() for p in request.headers.get("Sec-WebSocket-Protocol", "").split(",")]
    protocols = [scenario.subprotocol] if scenario.select(offered) else []
    # autoping off so that pongs reach us; the client's pings are then answered below.
    websocket = web.WebSocketResponse(protocols=protocols, autoping=False, max_msg_size=0, heartbeat=None)
    await websocket.prepare(request)
    connection = scenario.opened({name.lower(): value for name, value in request.headers.items()})
    play = asyncio.create_task(scenario.play(connection, Peer(websocket, request.transport)))
    try:
        async for message in websocket:
            if message.type == WSMsgType.TEXT:
                await scenario.received_text(connection, message.data)
            elif message.type == WSMsgType.PING:
                await websocket.pong(message.data)
            elif message.type == WSMsgType.PONG:
                scenario.received_pong(connection, message.data)
    finally:
        play.cancel()
    return websocket


async def main():
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
