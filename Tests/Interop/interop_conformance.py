# SPDX-License-Identifier: Apache-2.0
"""The conformance checker (Tests/ServerConformance) against each server program of the matrix,
in its check mode (INTEROP_MODE=check, Tests/Interop/README.md): pushes and closes asked for on
its standard input, what it took read from its events. The library stacks run the matrix's
compatibility settings (ack_text "ack {id}"); spec_server.py the canonical profile, with the hello
that authenticates, requests and an idle timeout, as a server of protocol 1.2 (hosts); the library
stacks as servers of protocol 1.1, which know no hosts.
"""
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import interop_support as support

sys.path.insert(0, str(support.HERE.parent / "ServerConformance"))
import check_server  # noqa: E402
from checker import FAILED, HELD, NOT_CHECKABLE, Settings, Target  # noqa: E402

IDLE_TIMEOUT = 1.0  # spec_server's, shortened so that the check waits little
HELLO_TIMEOUT = 1.0  # the same for the hello (S-HELLO-4)


def settings_for(stack, token, hello, subprotocol):
    filled = hello.replace("{token}", token)
    if stack.name == "spec":
        # The idle timeout stands for a fleet whose heartbeat_interval is a third of it (S-HB-3).
        return Settings(hello=filled, hello_authenticates=True, request='{"type":"request"}', subprotocol=subprotocol,
                        idle_timeout=IDLE_TIMEOUT, heartbeat_interval=IDLE_TIMEOUT / 3, hello_timeout=HELLO_TIMEOUT)
    return Settings(ack_text="ack {id}", hello=filled, subprotocol=subprotocol)


def check(stack, work, token, hello, subprotocol):
    """Runs the checker against `stack`; returns its report (and keeps it as conformance.json)."""
    work = Path(work)
    port = support.free_port()
    path = f"/connect/linux/acme/{token}"
    env = dict(os.environ, INTEROP_PORT=str(port), INTEROP_PATH=path, INTEROP_PUSHES="0", INTEROP_SUBPROTOCOL=subprotocol,
               INTEROP_MODE="check", INTEROP_HELLO=hello.replace("{token}", token),
               INTEROP_IDLE_TIMEOUT=str(IDLE_TIMEOUT), INTEROP_HELLO_TIMEOUT=str(HELLO_TIMEOUT), **stack.env)
    server = subprocess.Popen(stack.argv, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=open(work / "server.log", "w"), text=True)
    try:
        support.wait_for_port(port, server)
        events = support.EventLog(server.stdout)

        # The checker's close step asks for the close from a thread of its own while it pushes:
        # one line at a time, or two commands interleave into one the server cannot read.
        writing = threading.Lock()

        def command(line):
            with writing:
                server.stdin.write(line + "\n")
                server.stdin.flush()

        def taken(expected=None):
            # The server prints `taken` before it acknowledges, but its output reaches us on a
            # pipe another thread reads: the acknowledgement may come first. Wait for the line.
            if expected is not None:
                try:
                    events.wait(lambda log: expected in {e["id"] for e in log.of("taken")}, 2, f"{expected} taken")
                except AssertionError:
                    pass  # not taken: the step says so
            return [(event["id"], True) for event in events.of("taken")]

        target = Target(f"ws://127.0.0.1:{port}{path}", push=lambda text: command(f"push {text}"),
                        close=lambda code: command(f"close {code}"), taken=taken,
                        host_push=lambda host, text: command(f"push-host {host} {text}"))
        # The library stacks are servers of protocol 1.1, which knows no hosts: what an upgraded
        # daemon meets at a server that was not (the daemon's header is one they ignore).
        protocol = "1.2" if stack.name == "spec" else "1.1"
        report = check_server.check(target, settings_for(stack, token, hello, subprotocol), protocol=protocol)
    finally:
        support.stop(server)
    report["server"] = f"{stack.name} {stack.version}"
    (work / "conformance.json").write_text(json.dumps(report, indent=2))
    failed = [f"{row['id']} ({row['detail']})" for row in report["statements"] if row["result"] == FAILED]
    summary = report["summary"]
    counts = f"{summary[HELD]} held, {summary[FAILED]} failed, {summary[NOT_CHECKABLE]} not checkable"
    assert not failed, f"{counts}: " + "; ".join(failed)
    return report, (f"conformance of {stack.name} {stack.version} ({report['profile']} profile, protocol {protocol}): "
                    f"{counts}, {report['seconds']} s")


def matrix(reports):
    """The reports side by side, one row per statement: the table of docs/protocol.md's Appendix C."""
    mark = {HELD: "held", FAILED: "**failed**", NOT_CHECKABLE: "–"}
    names = [report["server"].split(" ")[0] for report in reports]
    lines = ["| statement | " + " | ".join(names) + " |", "| --- |" + " --- |" * len(names)]
    for row in reports[0]["statements"]:
        cells = [mark[next(r for r in report["statements"] if r["id"] == row["id"])["result"]] for report in reports]
        lines.append(f"| {row['id']} | " + " | ".join(cells) + " |")
    lines.append("| held / failed / not checkable | " + " | ".join(
        f"{r['summary'][HELD]} / {r['summary'][FAILED]} / {r['summary'][NOT_CHECKABLE]}" for r in reports) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    # The reports of the last `make interop` and `make server-conformance`, side by side.
    reports = json.loads((support.CACHE / "conformance.json").read_text())
    devserver = support.CACHE / "conformance-devserver.json"
    if devserver.exists():
        reports.append(json.loads(devserver.read_text()))
    sys.stdout.write(matrix(reports))
