#!/usr/bin/env python3
"""intrapush's conformance checker for push servers: it acts as intrapushd against a server and
reports each of the server's statements of docs/protocol.md (S-…) as held, failed or not checkable.

Python 3.9+ and its standard library only (RFC 6455 written out in wsclient.py), so that a server's
author can run it without Swift. The server must be made to push by a URL (POST, the push as the
body) or a command (`{body}` replaced by the push, one argument); to close and to list what it
took, likewise, when it can.

  check_server.py --url ws://127.0.0.1:8080/connect/linux/acme/TOKEN --push-url http://127.0.0.1:8080/push
  check_server.py --url … --push-command 'my-server-cli push {body}' --json
  check_server.py --self-test        # the checker against planted faulty servers (selftest.py)

Exit status: 0 when no statement failed, 1 when one did, 2 for a usage error.
"""
import argparse
import json
import shlex
import subprocess
import sys
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import steps_connection  # noqa: E402,F401  (the steps register themselves)
import steps_delivery  # noqa: E402,F401
import steps_messages  # noqa: E402,F401
from checker import FAILED, Checker, Settings, Target, render_text  # noqa: E402

# In this order: the upgrade's first, what needs no push, then pushes, messages, closes; idle and
# the observations of the whole run last.
ORDER = ["upgrade", "subprotocol", "wrong_token", "percent_decoding", "tls", "ping", "heartbeat", "hello",
         "delivery", "not_acknowledgements", "extra_acknowledgements", "messages", "replies", "oversized",
         "server_close", "client_close", "no_resend", "idle", "text_frames", "unobservable"]


def http(method, url, body=None):
    request = urllib.request.Request(url, data=None if body is None else body.encode(), method=method,
                                     headers={"Content-Type": "application/json"} if body is not None else {})
    with urllib.request.urlopen(request, timeout=10) as answer:
        return answer.read().decode()


def command(template, value):
    argv = [value if word == "{body}" else word.replace("{body}", value) for word in shlex.split(template)]
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
    push = close = taken = None
    if args.push_url:
        push = lambda text: http("POST", args.push_url, text)  # noqa: E731
    elif args.push_command:
        push = lambda text: command(args.push_command, text)  # noqa: E731
    if args.close_url:
        close = lambda code: http("POST", args.close_url.replace("{code}", str(code)), "")  # noqa: E731
    elif args.close_command:
        close = lambda code: command(args.close_command, str(code))  # noqa: E731
    if args.taken_url:
        taken = lambda expected=None: parse_taken(http("GET", args.taken_url))  # noqa: E731
    elif args.taken_command:
        taken = lambda expected=None: parse_taken(command(args.taken_command, ""))  # noqa: E731
    return Target(args.url, push, close, taken, args.wrong_token_url)


def settings_from(args):
    return Settings(heartbeat_text=args.heartbeat_text, ack_text=args.ack_text, id_field=args.id_field,
                    upstream_id_field=args.upstream_id_field, upstream_ack_text=args.upstream_ack_text,
                    reply_to_field=args.reply_to_field, hello=args.hello, hello_authenticates=args.hello_authenticates,
                    request=args.request, subprotocol=args.subprotocol, idle_timeout=args.idle_timeout,
                    ca_file=args.ca_file, headers=[tuple(h.split(":", 1)) for h in args.header])


def check(target, settings, steps=None, log=None):
    """Runs the checker; returns its report (a dict, as --json prints it)."""
    return Checker(target, settings, log).run(steps or ORDER)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", help="the WebSocket URL a client connects to, token included: ws[s]://HOST:PORT/PATH")
    parser.add_argument("--push-url", help="POST the push's text (a JSON object) there to make the server push it")
    parser.add_argument("--push-command", help="a command that makes the server push {body}")
    parser.add_argument("--close-url", help="POST there to make the server close the client's connection ({code}: 1001)")
    parser.add_argument("--close-command", help="a command that makes the server close the client's connection ({body}: the code)")
    parser.add_argument("--taken-url", help="GET there the ids of the client's messages the server took")
    parser.add_argument("--taken-command", help="a command that prints the ids of the client's messages the server took")
    parser.add_argument("--wrong-token-url", help="the URL with a token the server refuses (default: the last segment of /connect/C/O/T replaced)")
    parser.add_argument("--hello", help="the client's hello_text, as sent (token filled in)")
    parser.add_argument("--hello-authenticates", action="store_true", help="the server refuses a connection without the right hello")
    parser.add_argument("--request", help="a JSON object the server answers with a reply (the checker adds its id)")
    parser.add_argument("--subprotocol", help="the subprotocol the fleet agreed on")
    parser.add_argument("--idle-timeout", type=float, help="the server's idle timeout in seconds, to check that a silent client is dropped")
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
    report = check(target_from(args), settings_from(args), steps, log)
    print(json.dumps(report, indent=2) if args.json else render_text(report))
    return 1 if report["summary"][FAILED] else 0


if __name__ == "__main__":
    sys.exit(main())
