# SPDX-License-Identifier: Apache-2.0
"""The checker's self-test: it must pass spec_server.py (the canonical profile, written from the
document) and report each fault planted in a copy of it as the statement that fault breaks.

Each faulty server is spec_server's `Server` or `Connection` with one method replaced
(selftest_faults.py); it runs in this process, on a port of its own. So do a few correct servers
an earlier checker blamed (a close hook that returns once the server closed, the token in a
header, the compatibility profile's acknowledgements). Exit status 0 only when the correct server
passes every step, each fault is reported failed, and each of those servers is not.
"""
import json
import socket
import sys
import threading

import selftest_faults
from checker import FAILED, HELD, Checker, Settings, Target, render_text
from selftest_faults import TOKEN, spec_server

HELLO = json.dumps({"type": "hello", "token": TOKEN}, separators=(",", ":"))
REQUEST = '{"type":"request"}'
# spec_server's idle timeout, short so that the check waits little: it stands for a fleet whose
# heartbeat_interval is a third of it (S-HB-3: 3 x heartbeat_interval).
IDLE_TIMEOUT = 1.0
HEARTBEAT_INTERVAL = IDLE_TIMEOUT / 3
HELLO_TIMEOUT = 1.0


def start(server_class=None, connection_class=None, **options):
    """A spec server (with one fault, if given) on a free port of this process; returns it, its Target, its listener."""
    path = f"/connect/linux/acme/{TOKEN}"
    options = {"hello": HELLO, "idle_timeout": IDLE_TIMEOUT, "drain_timeout": 3.0, "hello_timeout": HELLO_TIMEOUT, **options}
    server = (server_class or spec_server.Server)(path, out=open("/dev/null", "w"), **options)
    if connection_class:
        server.connection_class = connection_class
    listener = socket.create_server(("127.0.0.1", 0))
    threading.Thread(target=server.serve, args=(listener,), daemon=True).start()
    port = listener.getsockname()[1]
    target = Target(f"ws://127.0.0.1:{port}{path}", push=server.queue, close=server.close_clients,
                    taken=lambda expected=None: server.taken_ids(),
                    host_push=lambda host, text: server.queue(text, to=host))
    return server, target, listener


def settings(**overrides):
    return Settings(**{"hello": HELLO, "hello_authenticates": True, "request": REQUEST, "idle_timeout": IDLE_TIMEOUT,
                       "heartbeat_interval": HEARTBEAT_INTERVAL, "hello_timeout": HELLO_TIMEOUT, **overrides})


def run_one(entry):
    """Runs an entry's steps against its server; returns (the statement's row or None, its name)."""
    name, server_class, connection_class, steps, statement, server_options, overrides, change = selftest_faults.spread(entry)
    server, target, listener = start(server_class, connection_class, **server_options)
    if change:
        target = change(server, target)
    report = Checker(target, settings(**overrides)).run(steps)
    listener.close()
    return next((r for r in report["statements"] if r["id"] == statement), None), name


def main(verbose=False):
    from check_server import ORDER
    problems = []
    _, target, listener = start()
    report = Checker(target, settings(), (lambda text: print(text, file=sys.stderr)) if verbose else None).run(ORDER)
    listener.close()
    print(render_text(report))
    failed = [row["id"] for row in report["statements"] if row["result"] == FAILED]
    if failed:
        problems.append(f"the correct spec server failed {failed}")
    for expected, entries in ((FAILED, selftest_faults.FAULTS), (HELD, selftest_faults.HOLDS)):
        for entry in entries:
            row, name = run_one(entry)
            statement = entry[4]
            right = row is not None and row["result"] == expected
            label = ("caught" if right else "MISSED") if expected == FAILED else ("held" if right else "BLAMED")
            kind = "a server that" if expected == FAILED else "a correct server"
            print(f"{label}: {kind} {name}: {statement} {row['result'] if row else 'not reported'}"
                  f"{': ' + row['detail'] if row and row['detail'] else ''}")
            if not right:
                problems.append(f"{kind} {name}: {statement} was not reported {expected}")
    for problem in problems:
        print(f"self-test: {problem}", file=sys.stderr)
    print(f"self-test: {'passed' if not problems else 'FAILED'} ({len(selftest_faults.FAULTS)} faults planted, "
          f"{len(selftest_faults.HOLDS)} correct variants)")
    return 1 if problems else 0
