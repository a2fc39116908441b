# SPDX-License-Identifier: Apache-2.0
"""Checker steps of the client's messages and the server's replies (docs/protocol.md S-OUT,
S-REQ), and the statements a client cannot observe."""
import json
import time

from checker import ARRIVAL, QUIET
import steps_hosts  # noqa: F401  (its steps register; scripts/check_protocol.py imports this module, not it)
from statements import checks
from steps_delivery import _finish


def _taken(c, expected=None):
    """What the server says it took: {id: times taken}; None without a way to ask."""
    if not c.target.taken:
        return None
    counts = {}
    for ident, taken in c.target.taken(expected):
        if taken:
            counts[ident] = counts.get(ident, 0) + 1
    return counts


def _acknowledged(session, ident):
    return lambda s: ident in s.upstream_acks()


@checks("S-OUT-1", "S-OUT-2", "S-OUT-3", "S-OUT-4")
def messages(c):
    """A message of the client's is acknowledged in the agreed form, taken before; sent again on
    the next connection it is acknowledged again and not taken twice."""
    if c.settings.upstream_ack is None:
        for statement in ("S-OUT-1", "S-OUT-2", "S-OUT-3", "S-OUT-4"):
            c.not_checkable(statement, "the server does not acknowledge messages (upstream_ack_text is empty)")
        return
    ident = c.new_id("m")
    session = c.connect()
    session.quiet(0.1)
    session.send_message(ident, type="intrapush-check")
    acknowledged = session.wait_for(_acknowledged(session, ident))
    taken_then = _taken(c, ident)
    expected = c.settings.upstream_ack.fill(ident)
    frames = [item for item in session.items if item.kind == "upstream-ack" and item.id == ident]
    near = [item.text for item in session.items if item.kind == "push" and ident in (item.text if isinstance(item.text, str) else "")]
    if not acknowledged:
        c.failed("S-OUT-1", f"no {expected!r} within {ARRIVAL:.0f} s" + (f"; came instead: {near[0]!r}" if near else ""))
    elif frames[0].text != expected:
        c.failed("S-OUT-1", f"acknowledged with {frames[0].text!r}, not {expected!r}")
    else:
        fragments = [e.fragments for e in session.ws.log if e.kind == "text" and e.data == expected]
        c.judge("S-OUT-1", fragments and fragments[0] == 1, f"{expected!r}", f"{expected!r} in {fragments[0] if fragments else '?'} fragments")
    if taken_then is None:
        c.not_checkable("S-OUT-4", "give --taken-url or --taken-command: what the server took")
    elif acknowledged:
        c.judge("S-OUT-4", taken_then.get(ident, 0) >= 1, "taken when it was acknowledged",
                "acknowledged, but not among what the server says it took")
    _finish(c, session)
    again = c.connect()
    again.quiet(0.1)
    again.send_message(ident, type="intrapush-check")
    c.judge("S-OUT-2", again.wait_for(_acknowledged(again, ident)), "acknowledged again when sent again",
            "sent again (as a client does after a reconnect), the message was not acknowledged again")
    again.quiet(0.2)
    _finish(c, again)
    taken = _taken(c)
    if taken is None:
        c.not_checkable("S-OUT-3", "give --taken-url or --taken-command: what the server took")
    else:
        c.judge("S-OUT-3", taken.get(ident, 0) == 1, "sent twice, taken once",
                f"sent twice, taken {taken.get(ident, 0)} times")


@checks("S-REQ-1", "S-REQ-2")
def replies(c):
    """A request gets a reply naming it; the reply is kept until acknowledged, acknowledged in
    its place among the pushes; the request sent again is acknowledged, not answered again."""
    if c.settings.request is None:
        c.not_checkable("S-REQ-1", "give --request: a message the server answers")
        c.not_checkable("S-REQ-2", "give --request: a message the server answers")
        return
    request = c.new_id("r")
    c.requests.add(request)
    body = json.loads(c.settings.request)
    session = c.connect()
    session.quiet(0.1)
    session.send_message(request, **body)
    answered = session.wait_for(lambda s: request in s.replies())
    if not answered:
        c.failed("S-REQ-1", f"no reply naming {request} in {c.settings.reply_to_field} within {ARRIVAL:.0f} s")
        c.not_checkable("S-REQ-2", "no reply")
        session.close()
        c.dirty = True
        return
    session.quiet(0.1)
    session.ws.abort()  # the reply unacknowledged: it must come again
    again = c.connect()
    kept = again.wait_for(lambda s: request in s.replies())
    problems = [] if kept else ["the reply, not acknowledged, was not delivered again"]
    # The reply among pushes: one acknowledgement covers whatever came first, the other comes again.
    if c.target.push:
        again.acknowledge()
        again.quiet(0.1)
        second = c.new_id("r")
        c.requests.add(second)
        push = c.push("beside a reply")
        again.send_message(second, **body)
        again.wait_for(lambda s: second in s.replies() and push in s.ids())
        order = [item for item in again.items if item.kind in ("push", "reply")][again.acknowledged:]
        first_name = order[0].id if order else None
        again.acknowledge(1)
        time.sleep(0.1)
        again.close()
        third = c.connect()
        third.quiet(QUIET)
        names = [item.id for item in third.items if item.kind in ("push", "reply")]
        expected_again = [item.id for item in order[1:]]
        if first_name in names or any(name not in names for name in expected_again):
            problems.append(f"one acknowledgement after {[i.id for i in order]} did not acknowledge the first alone "
                            f"(came again: {names})")
        _finish(c, third)
    else:
        _finish(c, again)
    c.judge("S-REQ-1", not problems, "the reply names its request, is kept until acknowledged, and counts in the order of pushes",
            "; ".join(problems))
    repeat = c.connect()
    repeat.quiet(0.1)
    repeat.send_message(request, **body)
    repeat.wait_for(_acknowledged(repeat, request))
    repeat.quiet(0.6)
    answered_again = request in repeat.replies()
    c.judge("S-REQ-2", not answered_again, "the request sent again was not answered again",
            "the request sent again (as after a reconnect) was answered again: the client stores a second reply as a notification")
    _finish(c, repeat)


UNOBSERVABLE = {
    "S-HS-6": "a client cannot make the server busy",
    "S-PUSH-2": "the checker writes the pushes itself",
    "S-SIZE-1": "the checker writes the pushes itself",
    "S-ID-1": "the checker writes the pushes' ids itself",
    "S-FAIL-1": "one server is checked at a time",
    "S-SEC-2": "a client cannot read the server's logs",
}


@checks(*UNOBSERVABLE)
def unobservable(c):
    """What only the server's author can check: said so, one statement at a time."""
    for statement, reason in UNOBSERVABLE.items():
        c.not_checkable(statement, reason)
