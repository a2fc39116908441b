# SPDX-License-Identifier: Apache-2.0
"""Checker steps of the hello (docs/protocol.md S-HELLO), and where the fleet's token travels
(the path, the configured headers, the hello), for the steps that send a wrong one."""
import json
from urllib.parse import unquote, urlsplit, urlunsplit

from checker import ARRIVAL, QUIET
from statements import checks

WRONG_TOKEN = "intrapush-check-wrong-token"


def fleet_token(c):
    """The token as the fleet has it: --token, else the last segment of /connect/CLIENT/ORG/TOKEN."""
    if c.target.token:
        return c.target.token
    segments = urlsplit(c.target.url).path.split("/")
    if len(segments) == 5 and segments[1] == "connect" and segments[4]:
        return unquote(segments[4])
    return None


def with_wrong_token(c):
    """The URL, the headers and the hello with a wrong token wherever the fleet's token travels
    (the path, the configured headers, the hello; C-URL-1, C-HS-2, C-HELLO-1), and those places."""
    token, places = fleet_token(c), []
    url, hello = c.target.url, c.settings.hello
    if c.target.wrong_token_url:
        url = c.target.wrong_token_url
        places.append("path")
    elif token:
        parts = urlsplit(url)
        segments = parts.path.split("/")
        hits = [i for i, segment in enumerate(segments) if segment and unquote(segment) == token]
        if hits:
            segments[hits[-1]] = WRONG_TOKEN
            url = urlunsplit(parts._replace(path="/".join(segments)))
            places.append("path")
    configured = c.settings.headers
    if token:
        configured = [(name, value.replace(token, WRONG_TOKEN)) for name, value in configured]
        if configured != c.settings.headers:
            places.append("headers")
    headers = c.headers()[:len(c.headers()) - len(c.settings.headers)] + configured
    if token and hello:
        for form in (token, json.dumps(token)[1:-1]):  # as it is, or escaped as JSON
            hello = hello.replace(form, WRONG_TOKEN)
        if hello != c.settings.hello:
            places.append("hello")
    return url, headers, hello, places


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


@checks("S-HELLO-3")
def hello_token(c):
    """On an upgrade the server accepts, a hello whose token is wrong: the connection is closed
    with 1008 and a reason, nothing sent on it."""
    if c.settings.hello is None or not c.settings.hello_authenticates:
        c.not_checkable("S-HELLO-3", "the server does not authenticate by the hello (give --hello, --hello-authenticates)")
        return
    _, _, hello, places = with_wrong_token(c)
    if "hello" not in places:
        c.not_checkable("S-HELLO-3", "the hello does not carry the token (give --token)")
        return
    session = c.connect(hello_text=hello)
    session.wait_for(lambda s: s.ended, ARRIVAL)
    code, pushed = session.ws.close_received, session.ids()
    reason = next((e.data for e in session.ws.log if e.kind == "close"), "")
    session.ws.abort()
    c.dirty = True
    if pushed:
        c.failed("S-HELLO-3", f"sent {len(pushed)} push(es) on a connection whose hello has a wrong token")
    elif code is None:
        c.failed("S-HELLO-3", "a hello with a wrong token: " + ("dropped without a close frame" if session.ended
                                                                else f"still open after {ARRIVAL:.0f} s"))
    elif code != 1008 or not reason:
        c.failed("S-HELLO-3", f"a hello with a wrong token: closed with {code} {reason!r}, not 1008 with a reason "
                 "(1000, 1001, 1012 and 1013 say nothing of the token)")
    else:
        c.held("S-HELLO-3", f"a hello with a wrong token: closed with 1008 {reason!r}, nothing sent")


@checks("S-HELLO-4")
def hello_timeout(c):
    """A connection that sends no hello (it pings, as a live client does): closed with 1008 once the
    hello timeout passed (10 s, or --hello-timeout, what the server was configured with)."""
    if c.settings.hello is None or not c.settings.hello_authenticates:
        c.not_checkable("S-HELLO-4", "the server does not authenticate by the hello (give --hello, --hello-authenticates)")
        return
    limit = c.settings.hello_timeout
    session = c.connect(hello=False, keep_alive=True)
    session.wait_for(lambda s: s.ended, limit + ARRIVAL)
    code = session.ws.close_received
    session.ws.abort()
    c.dirty = True
    if code == 1008:
        c.held("S-HELLO-4", f"a connection without its hello closed with 1008 within {limit:g} s")
    elif session.ended:
        c.failed("S-HELLO-4", f"a connection without its hello ended with {code or 'no close frame'}, not 1008")
    else:
        c.failed("S-HELLO-4", f"a connection without its hello is still open after {limit + ARRIVAL:g} s")
