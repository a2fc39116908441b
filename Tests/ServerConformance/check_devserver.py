#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The conformance checker against intrapush-devserver, the reference server (make
server-conformance): it is started with the canonical profile, a hello that authenticates,
answers to every message (--echo-upstream) and a short idle timeout, and driven through its HTTP
API (POST /push for every host of its default organisation, POST /push?host=H for host H alone,
POST /control/close, GET /upstream). Fails when a statement fails.

Usage: check_devserver.py --devserver PATH [--report FILE]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import urllib.parse
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import check_server  # noqa: E402
from checker import FAILED, Settings, Target, render_text  # noqa: E402

TOKEN = "good-token"
HELLO_TEMPLATE = '{"type":"hello","token":"{token}"}'
# The devserver's idle timeout, short so that the check waits little. S-HB-3 asks a server to drop
# a client silent for 3 x heartbeat_interval and not sooner: a devserver started with 1 s stands
# for a fleet whose heartbeat_interval is 1/3 s, which is what the checker is told (and its
# connections that must stay open ping at that pace, as intrapushd would).
IDLE_TIMEOUT = 1.0
HEARTBEAT_INTERVAL = IDLE_TIMEOUT / 3
# How long it waits for a hello, short for the same reason (S-HELLO-4 says 10 s by default).
HELLO_TIMEOUT = 1.0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--devserver", required=True)
    parser.add_argument("--report", help="also write the JSON report there")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="intrapush-conformance-") as directory:
        token_file = Path(directory) / "token"
        token_file.write_text(TOKEN + "\n")
        server = subprocess.Popen(
            [args.devserver, "serve", "--listen", "127.0.0.1:0", "--token-file", str(token_file),
             "--hello-text", HELLO_TEMPLATE, "--echo-upstream", "--idle-timeout", str(IDLE_TIMEOUT),
             "--hello-timeout", str(HELLO_TIMEOUT)],
            stdout=subprocess.PIPE, stderr=open(Path(directory) / "devserver.log", "w"), text=True)
        try:
            line = server.stdout.readline()
            if not line.startswith("listening on "):
                print(f"check_devserver: the devserver did not start:\n{(Path(directory) / 'devserver.log').read_text()}",
                      file=sys.stderr)
                return 1
            address = line.split()[-1]
            http = f"http://{address}"
            target = Target(f"ws://{address}/connect/linux/acme/{TOKEN}",
                            push=lambda text: check_server.http("POST", f"{http}/push", text),
                            host_push=lambda host, text: check_server.http(
                                "POST", f"{http}/push?host={urllib.parse.quote(host, safe='')}", text),
                            close=lambda code: check_server.http("POST", f"{http}/control/close?code={code}", ""),
                            taken=lambda expected=None: check_server.parse_taken(check_server.http("GET", f"{http}/upstream")))
            settings = Settings(hello=HELLO_TEMPLATE.replace("{token}", TOKEN), hello_authenticates=True,
                                request='{"type":"request"}', idle_timeout=IDLE_TIMEOUT,
                                heartbeat_interval=HEARTBEAT_INTERVAL, hello_timeout=HELLO_TIMEOUT)
            report = check_server.check(target, settings)
        finally:
            server.terminate()
            server.wait(timeout=10)
    report["server"] = f"devserver {subprocess.run([args.devserver, '--version'], capture_output=True, text=True).stdout.strip()}"
    print(render_text(report))
    if args.report:
        os.makedirs(os.path.dirname(os.path.abspath(args.report)), exist_ok=True)
        Path(args.report).write_text(json.dumps(report, indent=2))
    return 1 if report["summary"][FAILED] else 0


if __name__ == "__main__":
    sys.exit(main())
