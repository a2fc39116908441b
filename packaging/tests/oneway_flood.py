#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A neighbour on a shared host: pipelines COUNT oneway MarkRead calls of ids 1..COUNT (in turn)
on one connection to intrapushd's local API as fast as the socket takes them, then asks Count
on the same connection and prints how long that answer took ("flood N sent, answered after
S s"). For the system test and make bench, as any user; standard library only.

Usage: oneway_flood.py SOCKET COUNT [MAX_ID]
"""
import json
import socket
import sys
import time


def main():
    path, count = sys.argv[1], int(sys.argv[2])
    top = int(sys.argv[3]) if len(sys.argv) > 3 else count
    started = time.monotonic()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.connect(path)
        calls = b"".join(
            json.dumps({"method": "io.intrapush.Notifications.MarkRead", "parameters": {"ids": [1 + n % top]}, "oneway": True}).encode() + b"\0"
            for n in range(count))
        connection.sendall(calls)
        connection.sendall(json.dumps({"method": "io.intrapush.Notifications.Count", "parameters": {}}).encode() + b"\0")
        buffer = b""
        while b"\0" not in buffer:
            chunk = connection.recv(65536)
            if not chunk:
                break
            buffer += chunk
    reply = json.loads(buffer.split(b"\0", 1)[0]) if b"\0" in buffer else {"error": "closed"}
    print(f"flood {count} sent, answered after {time.monotonic() - started:.2f} s: {reply.get('error', 'ok')}", flush=True)


if __name__ == "__main__":
    main()
