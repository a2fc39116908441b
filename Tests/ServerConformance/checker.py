# SPDX-License-Identifier: Apache-2.0
"""The checker's machinery: the server under test (`Target`), the client's settings (`Settings`),
one connection as the client sees it (`Session`), and the run that records each statement's
outcome (`Checker`). The steps themselves are in steps_*.py.
"""
import json
import os
import threading
import time
import traceback

import wsclient
from statements import LEVELS, STATEMENTS, STEPS, TITLES
from templates import Template

HELD, FAILED, NOT_CHECKABLE = "held", "failed", "not checkable"
ARRIVAL = 5.0   # how long a push triggered, an acknowledgement or a pong may take to arrive
QUIET = 0.25    # how long nothing must come, on a loopback or a LAN, to call something absent
KEEPALIVE = b"intrapush-check-heartbeat"  # the payload of the pings of Session.keep_alive


class Target:
    """The server: its URL, and what the operator gave to drive it. `push(text)` makes it push
    `text` to every host of the organisation of `url`; `host_push(host, text)` to that host alone;
    `close(code)` makes it close the clients' connections; `taken(expected)` lists what it took
    from the clients, as [(id, taken)] (taken False: a repeat); `expected` is the id the checker
    expects there, for a hook that reads the server's account later than the server gave it (its
    output on another pipe). `token`: the token as the fleet has it (default: the last segment of
    /connect/CLIENT/ORG/TOKEN), for the steps that send a wrong one in its place."""

    def __init__(self, url, push=None, close=None, taken=None, wrong_token_url=None, host_push=None, token=None):
        self.url, self.push, self.close, self.taken = url, push, close, taken
        self.wrong_token_url, self.host_push, self.token = wrong_token_url, host_push, token


class Settings:
    """The fleet's settings that shape the wire, the canonical profile's by default."""

    def __init__(self, heartbeat_text="KA", ack_text="received message", id_field="id", upstream_id_field="id",
                 upstream_ack_text="received message {id}", reply_to_field=None, hello=None,
                 hello_authenticates=False, request=None, subprotocol=None, idle_timeout=None, ca_file=None,
                 headers=(), heartbeat_interval=10.0, hello_timeout=10.0):
        self.heartbeat_text, self.id_field, self.upstream_id_field = heartbeat_text, id_field, upstream_id_field
        self.ack = Template(ack_text)
        self.upstream_ack = Template(upstream_ack_text) if upstream_ack_text else None
        self.reply_to_field = reply_to_field or upstream_id_field
        self.hello, self.hello_authenticates, self.request = hello, hello_authenticates, request
        self.subprotocol, self.idle_timeout, self.ca_file, self.headers = subprotocol, idle_timeout, ca_file, list(headers)
        # The fleet's heartbeat_interval: S-HB-3 is judged against 3 x it; `idle_timeout` is what
        # the server was configured with, how long the checker waits.
        self.heartbeat_interval = heartbeat_interval
        # How long the server waits for the hello (S-HELLO-4): 10 s unless configured otherwise.
        self.hello_timeout = hello_timeout
        canonical = (heartbeat_text == "KA" and ack_text == "received message" and id_field == "id"
                     and upstream_id_field == "id" and upstream_ack_text == "received message {id}"
                     and self.reply_to_field == "id")
        self.profile = "canonical" if canonical else "custom"


class Item:
    """A data message from the server as the client tells it apart: `id` is a push's id, the
    request a reply names, or the message an acknowledgement names; `ack_id` what the client's
    acknowledgement of it carries (a push's, or a reply's own id member)."""

    def __init__(self, kind, text, ident=None, is_number=False, ack_id=None):
        self.kind, self.text, self.id, self.is_number = kind, text, ident, is_number
        self.ack_id = ident if ack_id is None else ack_id

    def __repr__(self):
        return f"<{self.kind} {self.id!r}>"


class Session:
    """One connection, seen as intrapushd sees it: every message classified (a heartbeat echo, an
    acknowledgement of a message, a reply to a request, else a push) and kept in `items`."""

    def __init__(self, checker, ws):
        self.checker, self.ws = checker, ws
        self.items = []       # pushes, replies, message acknowledgements, echoes, in arrival order
        self.acknowledged = 0  # how many pushes and replies of `items` were acknowledged
        self.seen = set()      # our push ids seen on this connection, for S-ACK-5

    # --- reading -------------------------------------------------------------------------------
    def classify(self, event):
        settings = self.checker.settings
        if event.kind == "binary":
            return Item("push", event.data)
        text = event.text
        if text == settings.heartbeat_text:
            return Item("echo", text)
        if settings.upstream_ack is not None:
            acknowledged = settings.upstream_ack.read(text)
            if acknowledged is not None:
                return Item("upstream-ack", text, acknowledged)
        try:
            value = json.loads(text)
        except ValueError:
            value = None
        if isinstance(value, dict):
            ident = value.get(settings.id_field)
            if isinstance(ident, bool) or not isinstance(ident, (str, int, float)):
                ident = None
            raw = _number_text(text, settings.id_field) if isinstance(ident, (int, float)) else None
            ident, is_number = (raw, True) if raw is not None else (ident, False)
            reply_to = value.get(settings.reply_to_field)
            if isinstance(reply_to, str) and reply_to in self.checker.requests:
                return Item("reply", text, reply_to, is_number, ack_id=ident)
            return Item("push", text, ident, is_number)
        return Item("push", text)

    def pump(self, timeout):
        """Reads one event (at most `timeout` seconds); returns it, classified into `items`."""
        event = self.ws.next(timeout)
        if event is None:
            return None
        if event.kind in ("text", "binary"):
            item = self.classify(event)
            if item.kind == "push" and isinstance(item.id, str) and item.id.startswith(self.checker.prefix):
                if item.id in self.seen:
                    self.checker.duplicates.append(item.id)
                self.seen.add(item.id)
            if event.fragments > 1024:
                self.checker.too_fragmented += 1
            self.items.append(item)
        return event

    def wait_for(self, condition, timeout=ARRIVAL):
        """Reads until `condition(self)` holds; returns whether it did within `timeout`."""
        deadline = time.monotonic() + timeout
        while not condition(self):
            event = self.pump(deadline - time.monotonic())
            if event is None or event.kind in ("eof", "close", "failed"):
                return condition(self)
        return True

    def quiet(self, seconds=QUIET, limit=10.0):
        """Reads until nothing came for `seconds` (or `limit` passed); returns the new events. The
        pongs of keep_alive's pings are not counted."""
        events, deadline = [], time.monotonic() + limit
        last = time.monotonic()
        while time.monotonic() < deadline:
            event = self.pump(min(seconds - (time.monotonic() - last), deadline - time.monotonic()))
            if event is None:
                break
            if event.kind == "pong" and event.data == KEEPALIVE:
                continue
            last = time.monotonic()
            events.append(event)
            if event.kind in ("eof", "failed"):
                break
        return events

    def ids(self, kind="push"):
        return [item.id for item in self.items if item.kind == kind]

    def has(self, *idents):
        return lambda session: all(i in session.ids() for i in idents)

    def upstream_acks(self):
        return [item.id for item in self.items if item.kind == "upstream-ack"]

    def replies(self):
        return [item.id for item in self.items if item.kind == "reply"]

    @property
    def ended(self):
        return self.ws.ended.is_set() or self.ws.close_received is not None

    # --- writing -------------------------------------------------------------------------------
    def acknowledge(self, count=None):
        """Acknowledges the next `count` pushes and replies (all of them by default), in order."""
        waiting = [item for item in self.items if item.kind in ("push", "reply")][self.acknowledged:]
        for item in waiting[:len(waiting) if count is None else count]:
            self.ws.send_text(self.checker.settings.ack.fill(item.ack_id, item.is_number))
            self.acknowledged += 1

    def send_message(self, ident, **members):
        body = {self.checker.settings.upstream_id_field: ident, **members}
        self.ws.send_text(json.dumps(body, separators=(",", ":")))

    def keep_alive(self):
        """Pings every heartbeat_interval, as intrapushd does (C-HB-1), until the connection ends:
        for steps whose connections wait on one another longer than a server's idle timeout."""
        def run():
            while not self.ws.ended.wait(self.checker.settings.heartbeat_interval):
                if not self.ws.send_ping(KEEPALIVE):
                    return
        threading.Thread(target=run, daemon=True).start()
        return self

    def close(self):
        return self.ws.close()


class Checker:
    def __init__(self, target, settings, log=None):
        self.target, self.settings = target, settings
        self.results = {}        # statement -> (outcome, detail, step)
        self.prefix = f"chk-{os.urandom(3).hex()}-"
        self.counter = 0
        self.host = f"{self.prefix}main"  # the Intrapush-Host of the checker's client, fresh per run
        self.requests = set()    # ids of requests sent, whose replies are replies
        self.duplicates = []     # our push ids seen twice on one connection
        self.too_fragmented = 0
        self.sessions = []
        self.dirty = True        # something may be left unacknowledged on the server
        self.log = log or (lambda text: None)
        self.step = None

    # --- outcomes ------------------------------------------------------------------------------
    def record(self, statement, outcome, detail):
        """A failure stands; a statement held can still fail later in the run; not checkable is
        replaced by anything the run finds out."""
        assert statement in LEVELS, statement
        current = self.results.get(statement)
        if current is None or current[0] == NOT_CHECKABLE or (current[0] == HELD and outcome == FAILED):
            self.results[statement] = (outcome, detail, self.step)

    def held(self, statement, detail=""):
        self.record(statement, HELD, detail)

    def failed(self, statement, detail):
        self.record(statement, FAILED, detail)

    def not_checkable(self, statement, reason):
        self.record(statement, NOT_CHECKABLE, reason)

    def judge(self, statement, condition, held, failed):
        (self.held if condition else self.failed)(statement, held if condition else failed)
        return condition

    # --- the server ----------------------------------------------------------------------------
    def new_id(self, what="p"):
        self.counter += 1
        return f"{self.prefix}{what}{self.counter}"

    def push_text(self, ident, body="", size=0):
        return json.dumps({self.settings.id_field: ident, "title": "intrapush check", "body": body + "x" * size},
                          separators=(",", ":"))

    def push(self, body="", size=0):
        """Makes the server push a new JSON object to every host of the organisation; returns its id."""
        ident = self.new_id()
        self.target.push(self.push_text(ident, body, size))
        self.dirty = True
        return ident

    def host_push(self, host, body=""):
        """Makes the server push a new JSON object to host `host` alone; returns its id."""
        ident = self.new_id()
        self.target.host_push(host, self.push_text(ident, body))
        return ident

    def new_host(self):
        """A host id no connection used yet (1.2, S-HOST: 1-64 of A-Z a-z 0-9 - . _ ~)."""
        return self.new_id("h")

    def headers(self, host=None):
        """The client's headers; `host` its Intrapush-Host (None: the checker's own, "": none, as
        a client older than protocol 1.2 sends)."""
        host = self.host if host is None else host
        return ([("User-Agent", "intrapush-check/1 intrapush-protocol/1"),
                 ("Intrapush-Protocol", f"1; profile={self.settings.profile}")]
                + ([("Intrapush-Host", host)] if host else []) + self.settings.headers)

    def connect(self, hello=True, url=None, max_message_size=1 << 20, headers=None, host=None, hello_text=None,
                keep_alive=False):
        """A new connection with the client's headers (and hello, or `hello_text`) as host `host`
        (see headers()), with `keep_alive` pinging as intrapushd does; a Session."""
        offered = [self.settings.subprotocol] if self.settings.subprotocol else []
        ws, answer = wsclient.connect(url or self.target.url, self.headers(host) if headers is None else headers, offered,
                                      ca_file=self.settings.ca_file, max_message_size=max_message_size)
        session = Session(self, ws)
        session.upgrade, session.host = answer, self.host if host is None else host
        self.sessions.append(session)
        if hello and (hello_text or self.settings.hello) is not None:
            ws.send_text(hello_text or self.settings.hello)
        return session.keep_alive() if keep_alive else session

    def drain(self, session, limit=10.0):
        """Reads and acknowledges everything that comes on `session`, until nothing comes."""
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            events = session.quiet(QUIET, limit=2)
            session.acknowledge()
            if not events or session.ended:
                break

    def settle(self):
        """Connects and acknowledges whatever the server still holds for the client, until quiet."""
        if not self.dirty:
            return
        session = self.connect()
        self.drain(session)
        time.sleep(0.05)  # the server reads the last acknowledgements before the close
        session.close()
        self.dirty = False

    # --- the run -------------------------------------------------------------------------------
    def run(self, steps):
        started = time.monotonic()
        for name in steps:
            statements, function = STEPS[name]
            self.step = name
            step_started = time.monotonic()
            try:
                if name not in ("upgrade", "subprotocol", "wrong_token", "percent_decoding", "host_id_syntax", "tls",
                                "unobservable", "text_frames"):
                    self.settle()
                function(self)
            except Exception as error:  # a server that breaks a step fails what the step checks
                detail = f"the step stopped: {type(error).__name__}: {error}"
                self.log(traceback.format_exc())
                self.dirty = True
                for statement in statements:
                    if statement not in self.results:
                        self.failed(statement, detail)
            for statement in statements:
                if statement not in self.results:
                    self.not_checkable(statement, "the step reported nothing")
            self.log(f"{name}: {time.monotonic() - step_started:.2f} s")
        self.elapsed = time.monotonic() - started
        return self.report()

    def report(self):
        rows = []
        for identifier, level, title in STATEMENTS:
            if identifier in self.results:
                outcome, detail, step = self.results[identifier]
                rows.append({"id": identifier, "level": level, "title": title, "result": outcome, "step": step,
                             "detail": detail})
        counts = {outcome: sum(1 for row in rows if row["result"] == outcome) for outcome in (HELD, FAILED, NOT_CHECKABLE)}
        return {"server": self.target.url, "profile": self.settings.profile, "statements": rows, "summary": counts,
                "seconds": round(getattr(self, "elapsed", 0.0), 1)}


def _number_text(text, field):
    """The exact digits of a number member `field` of a JSON object text (the client keeps them)."""
    key = json.dumps(field)
    start = text.find(key)
    if start < 0:
        return None
    rest = text[start + len(key):].lstrip()
    if not rest.startswith(":"):
        return None
    rest = rest[1:].lstrip()
    end = 0
    while end < len(rest) and rest[end] in "+-0123456789.eE":
        end += 1
    return rest[:end] or None


def render_text(report):
    lines = [f"intrapush server conformance: {report['server']} ({report['profile']} profile)"]
    for row in report["statements"]:
        lines.append(f"  {row['result']:<14} {row['id']:<10} {row['level']:<10} {TITLES[row['id']]}")
        if row["detail"]:
            lines.append(f"  {'':<14} {'':<10} {'':<10} -> {row['detail']}")
    summary = report["summary"]
    lines.append(f"{summary[HELD]} held, {summary[FAILED]} failed, {summary[NOT_CHECKABLE]} not checkable "
                 f"({report['seconds']} s)")
    return "\n".join(lines)
