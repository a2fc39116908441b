#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A raw Varlink client for the system test: calls one method of intrapushd's local API and
prints the replies' JSON, one line each (or the error's name and exit 1). Written against the
protocol (JSON messages ended by NUL), with the standard library only, so that it runs in the
test's containers as any user.

Usage: varlink_probe.py SOCKET METHOD [PARAMETERS-JSON] [--more]
"""
import json
import socket
import sys


def main():
    arguments = [a for a in sys.argv[1:] if a != "--more"]
    more = "--more" in sys.argv
    path, method = arguments[0], arguments[1]
    parameters = json.loads(arguments[2]) if len(arguments) > 2 else {}
    call = {"method": method, "parameters": parameters}
    if more:
        call["more"] = True
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.settimeout(10)
        connection.connect(path)
        connection.sendall(json.dumps(call).encode() + b"\0")
        buffer = b""
        while True:
            while b"\0" not in buffer:
                chunk = connection.recv(65536)
                if not chunk:
                    sys.exit("the daemon closed the connection")
                buffer += chunk
            message, buffer = buffer.split(b"\0", 1)
            reply = json.loads(message)
            if "error" in reply:
                print(reply["error"], json.dumps(reply.get("parameters", {})))
                sys.exit(1)
            print(json.dumps(reply.get("parameters", {}), sort_keys=True))
            if not reply.get("continues"):
                return


if __name__ == "__main__":
    main()
