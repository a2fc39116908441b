# SPDX-License-Identifier: Apache-2.0
"""Checker steps of hosts (docs/protocol.md S-HOST, protocol 1.2): many hosts share one token, and
a server keeps what it keeps for a client per (organisation, host), the host being the
`Intrapush-Host` header; a client without it is one host per organisation and token.

The server's queues outlive a step, so each step here takes host ids no connection used before
(Checker.new_host), first reads and acknowledges whatever the server holds for them (the
organisation's retained pushes: earlier steps', earlier runs'), and tells its own pushes by their
ids. Its org-wide pushes also wait for the hosts of earlier steps, which never connect again, and
for the checker's own host, which the next step settles.
"""
import time

import wsclient
from checker import ARRIVAL, QUIET
from statements import checks
from steps_delivery import _needs_push

NO_HOST_PUSH = "give --host-push-url or --host-push-command: the checker needs the server to push to one host"


def _open(c, host):
    """A connection of `host` ("": without Intrapush-Host), what the server held for it read and acknowledged."""
    session = c.connect(host=host, keep_alive=True)
    c.drain(session)
    return session


def _done(c, *sessions):
    """Acknowledges what is left on each connection and closes them; the checker's own host
    has the org-wide pushes of the step waiting."""
    for session in sessions:
        if not session.ended:
            session.quiet(0.1)
            session.acknowledge()
    time.sleep(0.05)  # the last acknowledgements reach the server before the close
    for session in sessions:
        session.close() if not session.ended else session.ws.abort()
    c.dirty = True


def _unacknowledged(session):
    return [item.id for item in session.items if item.kind in ("push", "reply")][session.acknowledged:]


@checks("S-HOST-1", "S-HOST-2")
def hosts(c):
    """Two hosts of one organisation: two org-wide pushes reach each; host A acknowledges the
    first, host B nothing. A's next connection gets the second alone; B's, opened while A's holds
    the second in flight, gets both. A message id taken from A is taken from B too."""
    if _needs_push(c, "S-HOST-1", "S-HOST-2"):
        return
    a, b = _open(c, c.new_host()), _open(c, c.new_host())
    p, q = c.push("hosts p"), c.push("hosts q")
    reached = {name: s.wait_for(s.has(p, q)) for name, s in (("A", a), ("B", b))}
    if not all(reached.values()):
        c.failed("S-HOST-2", f"two org-wide pushes, to two connected hosts of the organisation: host A got "
                 f"{[i for i in a.ids() if i in (p, q)]}, host B {[i for i in b.ids() if i in (p, q)]}")
        c.not_checkable("S-HOST-1", "the org-wide pushes did not reach both hosts")
        _done(c, a, b)
        return
    first = _unacknowledged(a)[0]
    other = q if first == p else p
    a.acknowledge(1)
    time.sleep(0.1)  # read before the close
    a.close()
    b.close()
    a2 = c.connect(keep_alive=True, host=a.host)
    a2.wait_for(a2.has(other))
    a2.quiet(QUIET)
    b2 = c.connect(keep_alive=True, host=b.host)  # while A's connection holds `other` unacknowledged
    b2.wait_for(b2.has(p, q))
    b2.quiet(QUIET)
    problems = []
    if other not in a2.ids():
        problems.append(f"host A's push {other}, sent and not acknowledged, did not come again to it")
    if first in a2.ids():
        problems.append(f"host A's push {first}, acknowledged on its connection, came again to it")
    if other not in b2.ids():
        problems.append(f"host B did not get {other} while host A's connection held it unacknowledged "
                        "(what is in flight was counted for the organisation, not the host)")
    problems += _same_message_id(c, a2, b2)
    c.judge("S-HOST-2", first in b2.ids(), "an org-wide push reached both hosts; host A's acknowledgement left host B's copy",
            f"{first}, acknowledged on host A's connection only, did not come again to host B")
    c.judge("S-HOST-1", not problems, "each host's pushes waiting, in flight and acknowledged are its own"
            + ("; a message id taken from each host" if c.target.taken and c.settings.upstream_ack else ""),
            "; ".join(problems))
    _done(c, a2, b2)


def _same_message_id(c, a, b):
    """One message id from two hosts: acknowledged on each, and (with --taken-*) taken twice."""
    if c.settings.upstream_ack is None:
        return []
    ident = c.new_id("m")
    for session in (a, b):
        session.send_message(ident, type="intrapush-check")
        if not session.wait_for(lambda s: ident in s.upstream_acks()):
            return [f"the message {ident} was not acknowledged on the connection of host {'AB'[session is b]}"]
    if not c.target.taken:
        return []
    taken = sum(1 for taken_id, taken in c.target.taken(ident) if taken_id == ident and taken)
    return [] if taken == 2 else [f"the message {ident}, sent once by each of two hosts, was taken {taken} time(s), "
                                  "not once for each host"]


@checks("S-HOST-3")
def late_host(c):
    """A host that connects for the first time after an org-wide push was queued gets it (with the
    other pushes the server retained, acknowledged as they come)."""
    if _needs_push(c, "S-HOST-3"):
        return
    late = c.push("before the host's first connection")
    session = c.connect(keep_alive=True, host=c.new_host())
    deadline = time.monotonic() + 2 * ARRIVAL
    while late not in session.ids() and not session.ended and time.monotonic() < deadline:
        session.pump(min(QUIET, deadline - time.monotonic()))
        session.acknowledge()
    c.judge("S-HOST-3", late in session.ids(),
            f"a host new to the server got the org-wide push queued before it came ({len(session.ids())} push(es) held for it)",
            f"a host that connected for the first time after an org-wide push was queued did not get it "
            f"({len(session.ids())} other push(es) came)")
    c.drain(session)
    _done(c, session)


@checks("S-HOST-4")
def host_push(c):
    """A push to host X reaches X, connected or when it comes back, and no other host: neither one
    connected meanwhile, nor one that connects for the first time after it."""
    if not c.target.host_push:
        c.not_checkable("S-HOST-4", NO_HOST_PUSH)
        return
    x_host = c.new_host()
    x, y = _open(c, x_host), _open(c, c.new_host())
    one = c.host_push(x_host, "to one host")
    reached = x.wait_for(x.has(one))
    x.quiet(QUIET)
    x.acknowledge()
    time.sleep(0.05)
    x.close()
    two = c.host_push(x_host, "to one host, away")
    x2 = c.connect(keep_alive=True, host=x_host)
    came_back = x2.wait_for(x2.has(two))
    y.quiet(QUIET)
    z = _open(c, c.new_host())
    elsewhere = [i for i in (one, two) if i in y.ids() + z.ids()]
    problems = [] if reached else [f"{one}, pushed to host X while it was connected, did not reach it"]
    problems += [] if came_back else [f"{two}, pushed to host X while it was away, did not reach it when it came back"]
    problems += [f"{elsewhere} (pushed to host X alone) reached other hosts"] if elsewhere else []
    c.judge("S-HOST-4", not problems, "pushes to one host reached it alone, connected and after it came back",
            "; ".join(problems))
    _done(c, x2, y, z)


@checks("S-HOST-5")
def host_twice(c):
    """A host opens a second connection while its first is open: the first is closed with 4409 and
    sent nothing more; what it was sent and did not acknowledge comes on the second, in order,
    before a push made after it."""
    if _needs_push(c, "S-HOST-5"):
        return
    host = c.new_host()
    first = _open(c, host)
    pushed = [c.push("host twice 1"), c.push("host twice 2"), c.push("host twice 3")]
    if not first.wait_for(first.has(*pushed)):
        c.failed("S-HOST-5", "the pushes never arrived on the host's first connection")
        _done(c, first)
        return
    acknowledged = _unacknowledged(first)[0]
    first.acknowledge(1)
    time.sleep(0.1)  # read before the second connection
    rest = [i for i in first.ids() if i in pushed and i != acknowledged]
    second = c.connect(keep_alive=True, host=host)
    first.wait_for(lambda s: s.ended, ARRIVAL)  # the server took the second for its host: the first closed
    new = c.push("after the second connection")
    second.wait_for(second.has(*rest, new))
    second.quiet(QUIET)
    code = first.ws.close_received
    problems = []
    if code != 4409:
        problems.append("the first connection " + ("is still open" if not first.ended else "ended without a close frame"
                                                   if code is None else f"was closed with {code}") + ", not closed with 4409")
    if new in first.ids() or first.ws.bytes_after_close:
        problems.append("the first connection was sent more after the second opened")
    if second.ended:
        problems.append(f"the second connection was closed ({second.ws.close_received})")
    order = [i for i in second.ids() if i in pushed + [new]]
    if order != rest + [new]:
        problems.append(f"the second connection got {order}, not {rest + [new]} (the first's unacknowledged, in order, "
                        "then the new push)")
    c.judge("S-HOST-5", not problems, f"the first connection closed with 4409; the second got {order}", "; ".join(problems))
    first.ws.abort()
    _done(c, second)


@checks("S-HOST-6")
def legacy_host(c):
    """A client without Intrapush-Host, as before protocol 1.2: an org-wide push reaches it, and
    its acknowledgement counts (the push does not come again)."""
    if _needs_push(c, "S-HOST-6"):
        return
    session = _open(c, "")
    pushed = c.push("to a client without Intrapush-Host")
    if not session.wait_for(session.has(pushed)):
        c.failed("S-HOST-6", "an org-wide push did not reach a connection without Intrapush-Host")
        _done(c, session)
        return
    session.acknowledge()
    time.sleep(0.1)  # read before the close
    session.close()
    again = c.connect(keep_alive=True, host="")
    again.quiet(2 * QUIET)
    c.judge("S-HOST-6", pushed not in again.ids(), "without Intrapush-Host: the push came, and its acknowledgement counted",
            "without Intrapush-Host: the push, acknowledged, came again on the next connection")
    _done(c, again)


@checks("S-HOST-7")
def host_id_syntax(c):
    """An Intrapush-Host that is no host id (a space and a slash; 65 characters) is answered 400."""
    answers = []
    for bad in ("not a host/id", "h" * 65):
        try:
            c.connect(hello=False, host=bad).close()
            answers.append((bad, 101))
        except wsclient.Refused as refused:
            answers.append((bad, refused.status))
    shown = [f"{bad if len(bad) < 20 else bad[:6] + '… (65)'!r} → {status}" for bad, status in answers]
    c.judge("S-HOST-7", all(status == 400 for _, status in answers), "; ".join(shown),
            "; ".join(shown) + " (400 expected; 401 or 403 would tell the client its token is refused)")
