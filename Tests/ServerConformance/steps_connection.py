"""Checker steps of connecting, the hello, liveness and the client's close (docs/protocol.md S-HS,
S-VER, S-HELLO, S-HB, S-CLOSE-1, S-SEC-1)."""
import ipaddress
import json
import time
from urllib.parse import urlsplit, urlunsplit

import wsclient
from checker import ARRIVAL, QUIET
from statements import checks

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


@checks("S-HS-4")
def subprotocol(c):
    """The subprotocol agreed is selected; one not offered never is; an unknown one is refused or not selected."""
    offered = c.settings.subprotocol
    problems, seen = [], []
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
            seen.append(f"{offer or 'none'} → 101, {selected or 'none selected'}")
            if selected is not None and selected not in offer:
                problems.append(f"offered {offer or 'none'}, selected {selected!r}")
        except wsclient.Refused as refused:
            seen.append(f"{offer or 'none'} → {refused.status}")
            if refused.status in (401, 403) or not (400 <= refused.status < 500):
                if offer or not offered:
                    problems.append(f"offered {offer or 'none'}, refused with {refused.status}, not a 4xx other than 401 and 403")
    c.judge("S-HS-4", not problems, "; ".join(seen), "; ".join(problems))


def _default_wrong_token_url(url):
    parts = urlsplit(url)
    segments = parts.path.split("/")
    if len(segments) == 5 and segments[1] == "connect" and segments[4]:
        segments[4] = "intrapush-check-wrong-token"
        return urlunsplit(parts._replace(path="/".join(segments)))
    return None


@checks("S-HS-5")
def wrong_token(c):
    url = c.target.wrong_token_url or _default_wrong_token_url(c.target.url)
    if url is None:
        c.not_checkable("S-HS-5", "give --wrong-token-url: a URL with a token the server does not accept")
        return
    try:
        ws, _ = wsclient.connect(url, c.headers(), [c.settings.subprotocol] if c.settings.subprotocol else [],
                                 ca_file=c.settings.ca_file)
        ws.close()
        c.failed("S-HS-5", "a wrong token was upgraded (101)")
    except wsclient.Refused as refused:
        c.judge("S-HS-5", refused.status in (401, 403), f"a wrong token: HTTP {refused.status}",
                f"a wrong token: HTTP {refused.status} (the client takes anything but 401 and 403 for an outage, and retries at its usual pace)")


@checks("S-HS-3")
def percent_decoding(c):
    """The token segment with one letter percent-encoded names the same client: a server that
    decodes segments before comparing accepts it; one that compares raw bytes does not."""
    parts = urlsplit(c.target.url)
    segments = parts.path.split("/")
    for index in range(len(segments) - 1, 0, -1):
        position = next((i for i, char in enumerate(segments[index]) if char.isascii() and char.isalnum()), None)
        if position is not None:
            break
    else:
        c.not_checkable("S-HS-3", "no segment of the path has a letter or digit to encode")
        return
    segment = segments[index]
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


@checks("S-HELLO-1", "S-HELLO-2")
def hello(c):
    if c.settings.hello is None:
        c.not_checkable("S-HELLO-1", "the clients send no hello (give --hello)")
        c.not_checkable("S-HELLO-2", "the clients send no hello (give --hello)")
        return
    if not c.target.push:
        c.not_checkable("S-HELLO-1", "give --push-url or --push-command")
        c.not_checkable("S-HELLO-2", "give --push-url or --push-command")
        return
    if c.settings.hello_authenticates:
        first = c.push("before the hello")
        session = c.connect(hello=False)
        session.quiet(0.8)
        early = session.ids()
        session.ws.send_text("intrapush-check: not the hello")
        closed = session.wait_for(lambda s: s.ended, ARRIVAL)
        pushed = session.ids()
        session.ws.abort()
        if early or pushed:
            c.failed("S-HELLO-2", f"sent {len(pushed)} push(es) to a connection that had not sent its hello")
        elif not closed:
            c.failed("S-HELLO-2", "a connection whose first frame is not the hello was not closed")
        else:
            code = session.ws.close_received
            c.held("S-HELLO-2", f"nothing before the hello; a wrong first frame closed with {code or 'no close frame'}")
    else:
        c.not_checkable("S-HELLO-2", "the hello does not authenticate (give --hello-authenticates if it does)")
        first = c.push("before the hello")
    # The push waits (or went out right after the 101); the hello arrives after it was sent: a
    # server that takes the hello for an acknowledgement, by order, takes it for this push's.
    session = c.connect()
    if not session.wait_for(session.has(first)):
        c.failed("S-HELLO-1", "the push waiting was not delivered after the hello")
        session.close()
        return
    session.quiet(QUIET)
    problems = []
    if c.settings.upstream_ack is not None:
        try:
            ident = json.loads(c.settings.hello).get(c.settings.upstream_id_field)
        except (ValueError, AttributeError):
            ident = None
        if isinstance(ident, str) and ident in session.upstream_acks():
            problems.append(f"acknowledged the hello as the message {ident!r}")
    session.close()
    again = c.connect()
    redelivered = again.wait_for(again.has(first))
    again.acknowledge()
    again.quiet(0.1)
    again.close()
    c.dirty = True
    if not redelivered:
        problems.append("the hello acknowledged the push sent before it: it was not delivered again")
    c.judge("S-HELLO-1", not problems, "the hello acknowledged nothing and was taken for no message", "; ".join(problems))


@checks("S-HB-3")
def idle(c):
    timeout = c.settings.idle_timeout
    if timeout is None:
        c.not_checkable("S-HB-3", "give --idle-timeout: the server's idle timeout, to wait that long")
        return
    session = c.connect()
    started = time.monotonic()
    dropped = session.wait_for(lambda s: s.ended, timeout + 5)
    after = time.monotonic() - started
    session.ws.abort()
    if not dropped:
        c.failed("S-HB-3", f"a client silent for {after:.1f} s is still connected (idle timeout given: {timeout} s)")
    elif after < timeout - 0.5:
        c.failed("S-HB-3", f"a silent client was dropped after {after:.1f} s, sooner than the {timeout} s given")
    else:
        c.held("S-HB-3", f"a silent client was dropped after {after:.1f} s")


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
