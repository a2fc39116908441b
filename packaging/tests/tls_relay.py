#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A TLS front for the devserver in the system test, as a reverse proxy terminates TLS in front of
a push server: it accepts TLS with the certificate it is given (one of the test's private CA) and
relays the bytes, both ways, to the devserver's plain port.

Usage: tls_relay.py --to HOST:PORT --cert CERT.pem --key KEY.pem   (prints "listening on 127.0.0.1:PORT")
"""
import argparse
import asyncio
import ssl


async def pipe(reader, writer):
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, ssl.SSLError):
        pass
    finally:
        writer.close()


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--to", required=True)
    parser.add_argument("--cert", required=True)
    parser.add_argument("--key", required=True)
    arguments = parser.parse_args()
    host, port = arguments.to.rsplit(":", 1)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(arguments.cert, arguments.key)

    async def relay(client_reader, client_writer):
        try:
            server_reader, server_writer = await asyncio.open_connection(host, int(port))
        except OSError:
            client_writer.close()
            return
        await asyncio.gather(pipe(client_reader, server_writer), pipe(server_reader, client_writer))

    server = await asyncio.start_server(relay, "127.0.0.1", 0, ssl=context)
    print(f"listening on 127.0.0.1:{server.sockets[0].getsockname()[1]}", flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
