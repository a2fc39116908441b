# SPDX-License-Identifier: Apache-2.0
"""Checker steps of connecting, liveness and the client's close (docs/protocol.md S-HS, S-VER,
S-HB, S-CLOSE-1, S-SEC-1); the hello's are in steps_hello.py."""
import ipaddress
import time
from urllib.parse import urlsplit, urlunsplit

import wsclient
from checker import ARRIVAL
from statements import checks
from steps_hello import with_wrong_token  # (importing it registers the hello's steps too)

UNKNOWN_SUBPROTOCOL = "intrapush-check.unknown"


@checks("S-HS-1", "S-HS-2", "S-HS-7", "S-VER-1")
def upgrade(c):
    """The client's upgrade as intrapushd sends it (no body framing, its User-Agent, its
    Intrapush-Protocol with a parameter no server knows yet): a 101 as RFC 6455 says, in time."""
    headers = c.headers()
    headers[1] = ("Intrapush-Protocol", headers[1][1] + "; x-intrapush-check=1")
    try:
        session = c.connect(hello=False, headers=headers)
    except wsclient.Refused as refused:
        try:  # without the version's headers: do they make the difference?
            c.connect(hello=False, headers=c.settings.headers).close()
        except (wsclient.Refused, OSError):
            c.failed("S-HS-1", f"the upgrade was answered with {refused}")
            c.failed("S-HS-2", f"the upgrade was answered with {refused}")
            c.not_checkable("S-VER-1", "no upgrade succeeds")
            c.not_checkable("S-HS-7", "no upgrade succeeds")
            return
        c.failed("S-VER-1", f"refused with {refused} when the upgrade names User-Agent and Intrapush-Protocol, accepted without")
        return
    answer = session.upgrade
    problems = []
    if not answer.accept_is_valid():
        problems.append("Sec-WebSocket-Accept is not the key's")
    if answer.headers.get("upgrade", "").lower() != "websocket":
        problems.append(f"Upgrade: {answer.headers.get('upgrade')!r}")
    if "upgrade" not in answer.headers.get("connection", "").lower():
        problems.append(f"Connection: {answer.headers.get('connection')!r}")
    if "sec-websocket-extensions" in answer.headers:
        problems.append(f"selected the extension {answer.headers['sec-websocket-extensions']!r}, which was not offered")
    c.judge("S-HS-1", not problems, "101 with a valid Sec-WebSocket-Accept, no extension", "; ".join(problems))
    c.held("S-HS-2", "upgraded a GET with neither Content-Length nor Transfer-Encoding")
    c.judge("S-HS-7", answer.elapsed < 10 and answer.head_bytes <= wsclient.MAX_HEAD,
            f"answered in {answer.elapsed * 1000:.0f} ms, {answer.head_bytes} bytes of head",
            f"answered in {answer.elapsed:.1f} s with {answer.head_bytes} bytes of head")
    c.held("S-VER-1", f"upgraded with Intrapush-Protocol: {headers[1][1]}")
    session.close()


def _refusal_allowed(status):
    return 400 <= status < 500 and status not in (401, 403)


@checks("S-HS-4", "S-HS-10", "S-HS-11")
def subprotocol(c):
    """The fleet's subprotocol is selected, and none that was not offered (S-HS-4); one the server
    does not speak is never selected (S-HS-10); with a subprotocol of its own, an upgrade offering
    none gets a 101 that selects none or a 4xx other than 401 and 403 (S-HS-11)."""
    offered = c.settings.subprotocol
    problems, seen, answers = [], [], {}
    if offered:
        ws, answer = wsclient.connect(c.target.url, c.headers(), [offered], ca_file=c.settings.ca_file)
        ws.close()
        selected = answer.headers.get("sec-websocket-protocol")
        seen.append(f"{offered} → {selected}")
        if selected != offered:
            problems.append(f"offered {offered}, selected {selected!r}")
    for offer in ([UNKNOWN_SUBPROTOCOL], []):
        try:
            ws, answer = wsclient.connect(c.target.url, c.headers(), offer, ca_file=c.settings.ca_file)
            ws.close()
            selected = answer.headers.get("sec-websocket-protocol")
            answers[bool(offer)] = (101, selected)
            seen.append(f"{offer or 'none'} → 101, {selected or 'none selected'}")
            if selected is not None and selected not in offer:
                problems.append(f"offered {offer or 'none'}, selected {selected!r}")
        except wsclient.Refused as refused:
            answers[bool(offer)] = (refused.status, None)
            seen.append(f"{offer or 'none'} → {refused.status}")
            if not _refusal_allowed(refused.status):
                if offer or not offered:
                    problems.append(f"offered {offer or 'none'}, refused with {refused.status}, not a 4xx other than 401 and 403")
    c.judge("S-HS-4", not problems, "; ".join(seen), "; ".join(problems))
    status, selected = answers[True]
    c.judge("S-HS-10", (status == 101 and selected is None) or _refusal_allowed(status),
            f"offered only {UNKNOWN_SUBPROTOCOL}: " + (f"HTTP {status}" if status != 101 else "101 selecting none"),
            f"offered only {UNKNOWN_SUBPROTOCOL}, which it does not speak: "
            + (f"HTTP {status}" if status != 101 else f"selected {selected!r}"))
    if not offered:
        c.not_checkable("S-HS-11", "the fleet has no subprotocol (give --subprotocol if it has one)")
        return
    status, selected = answers[False]
    c.judge("S-HS-11", (status == 101 and selected is None) or _refusal_allowed(status),
            "no subprotocol offered: " + (f"HTTP {status}" if status != 101 else "101 selecting none"),
            "no subprotocol offered: " + (f"HTTP {status}, not a 4xx other than 401 and 403" if status != 101
                                          else f"selected {selected!r}, which was not offered"))


@checks("S-HS-5")
def wrong_token(c):
    """A wrong token wherever the token travels (the path, the configured headers, the hello):
    refused at the upgrade with 401 or 403."""
    url, headers, hello, places = with_wrong_token(c)
    if not places:
        c.not_checkable("S-HS-5", "give --token (the token the fleet sends) or --wrong-token-url")
        return
    if places == ["hello"]:
        c.not_checkable("S-HS-5", "the token travels in the hello alone: refused by a close (S-HELLO-3, hello_token)")
        return
    try:
        ws, _ = wsclient.connect(url, headers, [c.settings.subprotocol] if c.settings.subprotocol else [],
                                 ca_file=c.settings.ca_file)
        if hello is not None:
            ws.send_text(hello)
        ws.close()
        c.failed("S-HS-5", f"a wrong token in the {' and '.join(places)} was upgraded (101)")
    except wsclient.Refused as refused:
        c.judge("S-HS-5", refused.status in (401, 403), f"a wrong token in the {' and '.join(places)}: HTTP {refused.status}",
                f"a wrong token in the {' and '.join(places)}: HTTP {refused.status} (the client takes anything but 401 "
                "and 403 for an outage, and retries at its usual pace)")


@checks("S-HS-3", "S-HS-9")
def percent_decoding(c):
    """The token segment with one letter percent-encoded names the same client: a server that
    decodes segments before comparing accepts it; one that compares raw bytes does not (S-HS-3).
    The segment with a malformed escape (`%zz`, a `%` at its end) is answered 400 (S-HS-9)."""
    parts = urlsplit(c.target.url)
    segments = parts.path.split("/")
    for index in range(len(segments) - 1, 0, -1):
        position = next((i for i, char in enumerate(segments[index]) if char.isascii() and char.isalnum()), None)
        if position is not None:
            break
    else:
        c.not_checkable("S-HS-3", "no segment of the path has a letter or digit to encode")
        c.not_checkable("S-HS-9", "no segment of the path has a letter or digit to encode")
        return
    segment = segments[index]
    answers = []
    for broken in (segment + "%zz", segment + "%"):
        url = urlunsplit(parts._replace(path="/".join(segments[:index] + [broken] + segments[index + 1:])))
        try:
            c.connect(url=url, hello=False).close()
            answers.append((broken, 101))
        except wsclient.Refused as refused:
            answers.append((broken, refused.status))
    wrong = [f"{broken} → {status}" for broken, status in answers if status != 400]
    c.judge("S-HS-9", not wrong, "; ".join(f"{broken} → {status}" for broken, status in answers),
            "; ".join(wrong) + " (400 expected: the path is malformed, and 401 or 403 would tell the client its token is refused)")
    segments[index] = segment[:position] + f"%{ord(segment[position]):02X}" + segment[position + 1:]
    url = urlunsplit(parts._replace(path="/".join(segments)))
    try:
        c.connect(url=url).close()
        c.held("S-HS-3", f"{parts.path} with {segment[position]!r} as %{ord(segment[position]):02X} names the same client")
    except wsclient.Refused as refused:
        c.failed("S-HS-3", f"{segments[index]} (the same segment, {segment[position]!r} percent-encoded) was refused with {refused.status}: the path is compared before decoding")


@checks("S-HS-8", "S-SEC-1")
def tls(c):
    parts = urlsplit(c.target.url)
    if parts.scheme == "wss":
        try:
            c.connect(hello=False).close()
            c.held("S-HS-8", "the certificate proves the host name (TLS 1.2 at least)")
            c.held("S-SEC-1", "wss")
        except (wsclient.Refused, OSError) as error:
            c.failed("S-HS-8", f"TLS: {error}")
        return
    c.not_checkable("S-HS-8", "the URL is ws: give the server's wss URL to check its certificate")
    try:
        loopback = parts.hostname == "localhost" or ipaddress.ip_address(parts.hostname).is_loopback
    except ValueError:
        loopback = False
    if loopback:
        c.not_checkable("S-SEC-1", "a server on the loopback interface: the token does not leave the host")
    else:
        c.failed("S-SEC-1", "ws to another host: the token travels in clear; give the wss URL if the server has one")


@checks("S-HB-1")
def ping(c):
    session = c.connect()
    started = time.monotonic()
    session.ws.send_ping(b"intrapush-check-1")
    pong = _wait_pong(session, b"intrapush-check-1", ARRIVAL)
    if pong is None:
        c.failed("S-HB-1", "no pong with the ping's payload within 5 s")
        session.close()
        return
    detail = f"pong in {(pong - started) * 1000:.0f} ms"
    if c.target.push:
        first = [c.push("backlog") for _ in range(20)]
        session.wait_for(session.has(first[0]))
        sent = time.monotonic()
        session.ws.send_ping(b"intrapush-check-2")
        pong = _wait_pong(session, b"intrapush-check-2", ARRIVAL)
        if pong is None:
            c.failed("S-HB-1", "no pong within 5 s of a ping sent while 20 pushes were under way")
        else:
            detail += f"; {(pong - sent) * 1000:.0f} ms while 20 pushes were under way"
        session.wait_for(session.has(*first))
        session.acknowledge()
    c.held("S-HB-1", detail)
    session.close()
    c.dirty = True


def _wait_pong(session, payload, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        event = session.pump(deadline - time.monotonic())
        if event is None or event.kind in ("eof", "close", "failed"):
            return None
        if event.kind == "pong" and event.data == payload:
            return event.time
    return None


@checks("S-HB-2")
def heartbeat(c):
    session = c.connect()
    for _ in range(2):
        session.ws.send_text(c.settings.heartbeat_text)
    session.quiet()
    answers = [item.text for item in session.items if item.kind == "push" and not str(item.id).startswith(c.prefix)]
    session.ws.send_ping(b"after-heartbeat")
    alive = _wait_pong(session, b"after-heartbeat", ARRIVAL) is not None
    echoes = sum(1 for item in session.items if item.kind == "echo")
    if answers:
        c.failed("S-HB-2", f"answered the heartbeat with {answers[0]!r}: the client would store it as a push")
    elif not alive:
        c.failed("S-HB-2", "the connection did not survive two heartbeats")
    else:
        c.held("S-HB-2", f"{'echoed' if echoes else 'ignored'}; the connection goes on")
    session.close()


@checks("S-HB-3", "S-HB-4")
def idle(c):
    """A silent client is dropped after 3 x the fleet's heartbeat_interval, not sooner (S-HB-3),
    with a close frame of code 1001 (S-HB-4). The checker waits as long as the idle timeout the
    server was configured with (--idle-timeout), and judges by the statement's."""
    configured = c.settings.idle_timeout
    if configured is None:
        for statement in ("S-HB-3", "S-HB-4"):
            c.not_checkable(statement, "give --idle-timeout: the server's idle timeout, to wait that long")
        return
    expected = 3 * c.settings.heartbeat_interval
    rule = f"3 x heartbeat_interval = {expected:g} s"
    session = c.connect()
    started = time.monotonic()
    dropped = session.wait_for(lambda s: s.ended, max(configured, expected) + 5)
    after = time.monotonic() - started
    code = session.ws.close_received
    session.ws.abort()
    if not dropped:
        c.failed("S-HB-3", f"a client silent for {after:.1f} s is still connected ({rule}; idle timeout given: {configured:g} s)")
        c.not_checkable("S-HB-4", "the silent client was not dropped")
        return
    if after < expected - min(0.5, 0.1 * expected):
        c.failed("S-HB-3", f"a silent client was dropped after {after:.1f} s, sooner than {rule} (idle timeout given: "
                 f"{configured:g} s): a client that heartbeats may be silent nearly that long")
    else:
        c.held("S-HB-3", f"a silent client was dropped after {after:.1f} s ({rule})")
    c.judge("S-HB-4", code == 1001, "closed with 1001",
            "dropped without a close frame" if code is None else f"closed with {code}, not 1001")


@checks("S-CLOSE-1")
def client_close(c):
    session = c.connect()
    session.quiet(0.1)
    sent = time.monotonic()
    code = session.ws.close(1000)
    if code is None:
        c.failed("S-CLOSE-1", "no close frame answered the client's close within 2 s")
    elif session.ws.bytes_after_close:
        c.failed("S-CLOSE-1", f"{session.ws.bytes_after_close} bytes came after the server's close frame")
    else:
        c.held("S-CLOSE-1", f"answered with close {code} in {(time.monotonic() - sent) * 1000:.0f} ms")
