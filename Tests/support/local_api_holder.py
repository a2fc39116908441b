#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""One person holding many idle connections to intrapushd's local API, as a script of theirs
or a program that leaks sockets would: opens COUNT connections (sending nothing on them), then
one more on which it calls METHOD, and prints that call's answer (the error's name, or "ok").
Then, for each line read on standard input, prints how many of the COUNT the daemon still holds
open ("open N"); it lets them go when its standard input closes. For the integration test, the
system test and make bench, as any user; standard library only.

Usage: local_api_holder.py SOCKET COUNT [METHOD]
"""
import json
import select
import socket
import sys


def main():
    path, count = sys.argv[1], int(sys.argv[2])
    method = sys.argv[3] if len(sys.argv) > 3 else "io.intrapush.Notifications.Count"
    held = []
    for _ in range(count):
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            connection.connect(path)
        except OSError:
            connection.close()
            continue
        held.append(connection)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as extra:
        extra.connect(path)  # blocking: a full backlog is waited out, as the CLI does
        extra.settimeout(10)
        buffer = b""
        try:
            # The daemon may close it before reading the call (a full pool takes an idle
            # connection, and one whose call is not yet read is idle): that is the answer "closed".
            extra.sendall(json.dumps({"method": method, "parameters": {}}).encode() + b"\0")
            while b"\0" not in buffer:
                chunk = extra.recv(65536)
                if not chunk:
                    break
                buffer += chunk
        except OSError:
            pass
        reply = json.loads(buffer.split(b"\0", 1)[0]) if b"\0" in buffer else None
        print("answer", "closed" if reply is None else reply.get("error", "ok"), flush=True)
    closed = set()
    for _ in sys.stdin:
        # A connection the daemon closed reads as end of file at once; one it holds does not.
        readable, _, _ = select.select([c for c in held if c not in closed], [], [], 0)
        closed |= {connection for connection in readable if connection.recv(1) == b""}
        print("open", len(held) - len(closed), flush=True)


if __name__ == "__main__":
    main()
