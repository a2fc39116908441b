#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""intrapush's conformance checker for push servers: it acts as intrapushd against a server and
reports each of the server's statements of docs/protocol.md (S-…) as held, failed or not checkable.

Python 3.9+ and its standard library only (RFC 6455 written out in wsclient.py), so that a server's
author can run it without Swift. The server must be made to push by a URL (POST, the push as the
body) or a command (`{body}` replaced by the push, one argument); to push to one host, to close
and to list what it took, likewise, when it can.

The checker's client sends `Intrapush-Host` (protocol 1.2) with an id fresh for each run, and
other fresh ids where a step needs more hosts; `legacy_host` connects without it. The server's
queues outlive each step: a step's org-wide pushes wait for every host the run used before, and
for hosts that come later (S-HOST-3); the steps acknowledge what they get and tell their own
pushes by their ids.

  check_server.py --url ws://127.0.0.1:8080/connect/linux/acme/TOKEN --push-url http://127.0.0.1:8080/push
      [--host-push-url 'http://127.0.0.1:8080/push?host={host}'] [--idle-timeout 30 --heartbeat-interval 10]
  check_server.py --url … --push-command 'my-server-cli push {body}' --json
  check_server.py --self-test        # the checker against planted faulty servers (selftest.py)

Exit status: 0 when no statement failed, 1 when one did, 2 for a usage error.
"""
import argparse
import json
import shlex
import subprocess
import sys
import urllib.parse
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import steps_connection  # noqa: E402,F401  (the steps register themselves)
import steps_delivery  # noqa: E402,F401
import steps_hello  # noqa: E402,F401
import steps_hosts  # noqa: E402,F401
import steps_messages  # noqa: E402,F401
from checker import FAILED, HELD, NOT_CHECKABLE, Checker, Settings, Target, render_text  # noqa: E402
from statements import LEVELS, SINCE_1_2, STATEMENTS, STEPS, TITLES  # noqa: E402

# In this order: the upgrade's first, what needs no push, then pushes, messages, hosts, closes;
# idle and the observations of the whole run last.
ORDER = ["upgrade", "subprotocol", "wrong_token", "percent_decoding", "host_id_syntax", "tls", "ping", "heartbeat",
         "hello", "hello_token", "hello_timeout", "delivery", "not_acknowledgements", "extra_acknowledgements", "empty_id_ack",
         "messages", "replies", "oversized", "hosts", "late_host", "host_push", "host_twice", "legacy_host",
         "server_close", "client_close", "no_resend", "idle", "text_frames", "unobservable"]
# The steps of protocol 1.2's hosts (S-HOST): a server of protocol 1.1 fails them.
HOST_STEPS = ["host_id_syntax", "hosts", "late_host", "host_push", "host_twice", "legacy_host"]


def http(method, url, body=None):
    request = urllib.request.Request(url, data=None if body is None else body.encode(), method=method,
                                     headers={"Content-Type": "application/json"} if body is not None else {})
    with urllib.request.urlopen(request, timeout=10) as answer:
        return answer.read().decode()


def command(template, value, host=None):
    """Runs `template`, `{body}` in it replaced by `value` (and `{host}` by `host`), one argument each."""
    words = [word if host is None else word.replace("{host}", host) for word in shlex.split(template)]
    argv = [value if word == "{body}" else word.replace("{body}", value) for word in words]
    result = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    if result.returncode != 0:
        raise RuntimeError(f"{argv[0]} exited with {result.returncode}: {result.stderr.strip()[:200]}")
    return result.stdout


def parse_taken(text):
    """What a server says it took: a JSON array of ids (one entry per take), or an object whose
    `messages` are objects with `id` and, for a repeat that was not taken, `"taken": false`
    (intrapush-devserver's GET /upstream); or one id a line."""
    text = text.strip()
    try:
        value = json.loads(text) if text else []
    except ValueError:
        return [(line.strip(), True) for line in text.splitlines() if line.strip()]
    if isinstance(value, dict):
        return [(m.get("id"), m.get("taken", True)) for m in value.get("messages", []) if isinstance(m, dict)]
    return [(ident, True) for ident in value]


def target_from(args):
    push = close = taken = host_push = None
    if args.push_url:
        push = lambda text: http("POST", args.push_url, text)  # noqa: E731
    elif args.push_command:
        push = lambda text: command(args.push_command, text)  # noqa: E731
    if args.host_push_url:
        host_push = lambda host, text: http(  # noqa: E731
            "POST", args.host_push_url.replace("{host}", urllib.parse.quote(host, safe="")), text)
    elif args.host_push_command:
        host_push = lambda host, text: command(args.host_push_command, text, host)  # noqa: E731
    if args.close_url:
        close = lambda code: http("POST", args.close_url.replace("{code}", str(code)), "")  # noqa: E731
    elif args.close_command:
        close = lambda code: command(args.close_command, str(code))  # noqa: E731
    if args.taken_url:
        taken = lambda expected=None: parse_taken(http("GET", args.taken_url))  # noqa: E731
    elif args.taken_command:
        taken = lambda expected=None: parse_taken(command(args.taken_command, ""))  # noqa: E731
    return Target(args.url, push, close, taken, args.wrong_token_url, host_push, args.token)


def settings_from(args):
    return Settings(heartbeat_text=args.heartbeat_text, ack_text=args.ack_text, id_field=args.id_field,
                    upstream_id_field=args.upstream_id_field, upstream_ack_text=args.upstream_ack_text,
                    reply_to_field=args.reply_to_field, hello=args.hello, hello_authenticates=args.hello_authenticates,
                    request=args.request, subprotocol=args.subprotocol, idle_timeout=args.idle_timeout,
                    ca_file=args.ca_file, headers=[(n.strip(), v.strip()) for n, v in (h.split(":", 1) for h in args.header)],
                    heartbeat_interval=args.heartbeat_interval, hello_timeout=args.hello_timeout)


def check(target, settings, steps=None, log=None, protocol="1.2"):
    """Runs the checker; returns its report (a dict, as --json prints it). A server checked as one of
    protocol 1.1 (`protocol`) is held to 1.1's statements only: the host steps are not run, and the
    statements 1.2 added are reported not checkable, saying so."""
    checker = Checker(target, settings, log)
    steps = steps or ORDER
    if protocol == "1.1":
        steps = [step for step in steps if step not in HOST_STEPS]
    report = checker.run(steps)
    if protocol == "1.1":
        for row in report["statements"]:
            if row["id"] in SINCE_1_2:
                row["result"], row["detail"] = NOT_CHECKABLE, "added by protocol 1.2; checked as a server of 1.1"
        for step in HOST_STEPS:
            for statement in STEPS[step][0]:
                if not any(row["id"] == statement for row in report["statements"]):
                    report["statements"].append({"id": statement, "level": LEVELS[statement], "title": TITLES[statement],
                                                 "result": NOT_CHECKABLE, "step": step,
                                                 "detail": "added by protocol 1.2; checked as a server of 1.1"})
        order = [identifier for identifier, _, _ in STATEMENTS]
        report["statements"].sort(key=lambda row: order.index(row["id"]))
        report["summary"] = {outcome: sum(1 for row in report["statements"] if row["result"] == outcome)
                             for outcome in (HELD, FAILED, NOT_CHECKABLE)}
    report["protocol"] = protocol
    return report


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", help="the WebSocket URL a client connects to, token included: ws[s]://HOST:PORT/PATH")
    parser.add_argument("--push-url", help="POST the push's text (a JSON object) there to make the server push it")
    parser.add_argument("--push-command", help="a command that makes the server push {body}")
    parser.add_argument("--host-push-url", help="POST the push's text there to make the server push it to one host "
                        "({host}: the host's Intrapush-Host, percent-encoded)")
    parser.add_argument("--host-push-command", help="a command that makes the server push {body} to host {host}")
    parser.add_argument("--close-url", help="POST there to make the server close the client's connection ({code}: 1001)")
    parser.add_argument("--close-command", help="a command that makes the server close the client's connection ({body}: the code)")
    parser.add_argument("--taken-url", help="GET there the ids of the client's messages the server took")
    parser.add_argument("--taken-command", help="a command that prints the ids of the client's messages the server took")
    parser.add_argument("--token", help="the token the fleet sends (default: the last segment of /connect/C/O/T), "
                        "replaced by a wrong one in the path, the --header lines and the hello to check refusals")
    parser.add_argument("--wrong-token-url", help="the URL with a token the server refuses (default: the token's segment replaced)")
    parser.add_argument("--hello", help="the client's hello_text, as sent (token filled in)")
    parser.add_argument("--hello-authenticates", action="store_true", help="the server refuses a connection without the right hello")
    parser.add_argument("--request", help="a JSON object the server answers with a reply (the checker adds its id)")
    parser.add_argument("--subprotocol", help="the subprotocol the fleet agreed on")
    parser.add_argument("--idle-timeout", type=float, help="the idle timeout the server was configured with, in "
                        "seconds: how long to wait for a silent client to be dropped")
    parser.add_argument("--heartbeat-interval", type=float, default=10.0, help="the fleet's heartbeat_interval in "
                        "seconds (default 10): a silent client is to be dropped after 3 x it, not sooner (S-HB-3)")
    parser.add_argument("--hello-timeout", type=float, default=10.0, help="how long the server waits for the hello, "
                        "in seconds, when it was configured otherwise than 10 s (S-HELLO-4)")
    parser.add_argument("--ca-file", help="the CA to verify a wss server with (default: the system's)")
    parser.add_argument("--header", action="append", default=[], help="another header line of the upgrade (NAME: VALUE)")
    profile = parser.add_argument_group("the compatibility profile (Appendix A): the fleet's settings, when not the defaults")
    profile.add_argument("--heartbeat-text", default="KA")
    profile.add_argument("--ack-text", default="received message")
    profile.add_argument("--id-field", default="id")
    profile.add_argument("--upstream-id-field", default="id")
    profile.add_argument("--upstream-ack-text", default="received message {id}", help="'' when the server does not acknowledge")
    profile.add_argument("--reply-to-field")
    parser.add_argument("--only", help="comma-separated steps: " + ", ".join(ORDER))
    parser.add_argument("--protocol", choices=["1.1", "1.2"], default="1.2",
                        help="the protocol version the server claims (1.1: held to 1.1's statements only; no hosts)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--verbose", action="store_true", help="say how long each step took, and why one stopped")
    parser.add_argument("--self-test", action="store_true", help="run the checker against planted faulty servers")
    args = parser.parse_args()
    if args.self_test:
        import selftest
        return selftest.main(verbose=args.verbose)
    if not args.url:
        parser.error("--url is required (or --self-test)")
    steps = args.only.split(",") if args.only else ORDER
    unknown = [step for step in steps if step not in ORDER]
    if unknown:
        parser.error(f"unknown steps: {', '.join(unknown)}")
    log = (lambda text: print(text, file=sys.stderr)) if args.verbose else None
    report = check(target_from(args), settings_from(args), steps, log, protocol=args.protocol)
    print(json.dumps(report, indent=2) if args.json else render_text(report))
    return 1 if report["summary"][FAILED] else 0


if __name__ == "__main__":
    sys.exit(main())
