#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Whether pipelined oneway marks are all made (issue 56: some were lost on a fresh connection).
Opens CONNECTIONS fresh connections to intrapushd's local API at once and splits the ids
FIRST..FIRST+COUNT-1 between them, a consecutive run each. On each it writes one oneway MarkRead
per id as fast as the socket takes them, then a MarkRead of its last id that is not oneway, and
waits for that answer: a person's marks are committed in order, so it comes after every mark
before it. The caller's unread count (Count, on a connection of its own) before and after gives
how many were made. Prints one line:

    oneway-marks sent N connections C before B unread U made M lost L in S s

An id whose oneway mark was lost is marked by its connection's last call, whose answer says so:
it counts as lost. The ids must be unread and visible to the caller, and nothing else may mark or
store meanwhile. With --expect-unread U (the count once all are made), exit 1 when a mark was
lost. Exit 2, saying why, on an error answer, a closed connection or a timeout. For the system
test and make bench, as any user; standard library only.

Usage: oneway_marks.py SOCKET --first ID --count N [--connections C] [--expect-unread U]
"""
import argparse
import json
import socket
import sys
import threading
import time

MARK = "io.intrapush.Notifications.MarkRead"
UNREAD = {"method": "io.intrapush.Notifications.Count", "parameters": {"filter": {"unread": True}}}


class Failure(Exception):
    pass


def encoded(call):
    return json.dumps(call).encode() + b"\0"


def answer(connection, what):
    """The first message on the connection, a reply; Failure, naming what was asked, otherwise."""
    buffer = b""
    while b"\0" not in buffer:
        try:
            chunk = connection.recv(65536)
        except socket.timeout:
            raise Failure(f"{what}: no answer within {connection.gettimeout():g} s") from None
        if not chunk:
            raise Failure(f"{what}: the daemon closed the connection")
        buffer += chunk
    reply = json.loads(buffer.split(b"\0", 1)[0])
    if "error" in reply:
        raise Failure(f"{what}: {reply['error']} {json.dumps(reply.get('parameters', {}))}")
    return reply.get("parameters", {})


def unread(path, timeout):
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.settimeout(timeout)
        connection.connect(path)
        connection.sendall(encoded(UNREAD))
        reply = answer(connection, "Count of the unread")
    if not isinstance(reply.get("count"), int):
        raise Failure(f"Count of the unread: {json.dumps(reply)}")
    return reply["count"]


def marks(connection, ids, outcome):
    """One connection's oneway marks, then its last id again, awaited; `outcome` gets that
    answer or the Failure (a thread's exception would be lost)."""
    try:
        connection.sendall(b"".join(encoded({"method": MARK, "parameters": {"ids": [i]}, "oneway": True}) for i in ids))
        connection.sendall(encoded({"method": MARK, "parameters": {"ids": [ids[-1]]}}))
        reply = answer(connection, f"the mark of {ids[-1]} after the oneway marks of {ids[0]}..{ids[-1]}")
        if reply.get("missing") or reply.get("marked", 0) + reply.get("already_read", 0) != 1:
            raise Failure(f"the mark of {ids[-1]}: {json.dumps(reply)} (the ids must exist and be the caller's)")
        outcome.append(reply)
    except (Failure, OSError, ValueError) as error:
        outcome.append(Failure(f"{error}" if isinstance(error, Failure) else f"the marks of {ids[0]}..{ids[-1]}: {error}"))


def main():
    parser = argparse.ArgumentParser(description="Pipelined oneway MarkRead calls on fresh connections: are all made?")
    parser.add_argument("socket")
    parser.add_argument("--first", type=int, required=True, help="the first id to mark")
    parser.add_argument("--count", type=int, required=True, help="how many ids, from the first on")
    parser.add_argument("--connections", type=int, default=1, help="fresh connections at once (1)")
    parser.add_argument("--expect-unread", type=int, help="the caller's unread count once all are made")
    parser.add_argument("--timeout", type=float, default=120, help="seconds to wait for any answer (120)")
    options = parser.parse_args()
    if not 1 <= options.connections <= options.count:
        parser.error("--connections must be between 1 and --count")
    ids = range(options.first, options.first + options.count)
    share, extra = divmod(options.count, options.connections)
    runs, start = [], 0
    for n in range(options.connections):
        end = start + share + (1 if n < extra else 0)
        runs.append(ids[start:end])
        start = end
    connections = []
    try:
        before = unread(options.socket, options.timeout)
        for _ in runs:
            connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            connections.append(connection)
            # Blocking: with a timeout, a connect finding the listen backlog full fails at once (EAGAIN).
            connection.connect(options.socket)
            connection.settimeout(options.timeout)
        started = time.monotonic()
        outcomes = [[] for _ in runs]
        threads = [threading.Thread(target=marks, args=(c, run, o)) for c, run, o in zip(connections, runs, outcomes)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        seconds = time.monotonic() - started
        for outcome in outcomes:
            if isinstance(outcome[0], Failure):
                raise outcome[0]
        after = unread(options.socket, options.timeout)
    except (Failure, OSError, ValueError) as error:
        sys.stderr.write(f"oneway-marks: {error}\n")
        sys.exit(2)
    finally:
        for connection in connections:
            connection.close()
    # What the last calls marked, their connection's oneway mark of the same id had not.
    remade = sum(outcome[0].get("marked", 0) for outcome in outcomes)
    made = before - after - remade
    print(f"oneway-marks sent {options.count} connections {options.connections} before {before} unread {after} "
          f"made {made} lost {options.count - made} in {seconds:.2f} s", flush=True)
    if options.expect_unread is not None:
        lost = after - options.expect_unread + remade
        said = f"oneway-marks: unread {after} (before {before}), expected {options.expect_unread}"
        if lost > 0:
            remark = f" ({remade} of those ids marked by the last calls, which are not oneway)" if remade else ""
            sys.exit(f"{said}: {lost} of the {options.count} oneway marks were not made{remark}")
        if lost < 0:
            sys.exit(f"{said}: {-lost} fewer than the marks explain (marked by another caller, or fewer unread to begin with?)")


if __name__ == "__main__":
    main()
