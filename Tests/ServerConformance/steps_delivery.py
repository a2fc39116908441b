# SPDX-License-Identifier: Apache-2.0
"""Checker steps of pushes and their acknowledgements, oversized pushes and the server's close
(docs/protocol.md S-ACK, S-PUSH-1, S-SIZE-2, S-CLOSE-2, S-CLOSE-3)."""
import json
import threading
import time

from checker import ARRIVAL, QUIET
from statements import checks

NO_PUSH = "give --push-url or --push-command: the checker needs the server to push"


def _needs_push(c, *statements):
    if c.target.push:
        return False
    for statement in statements:
        c.not_checkable(statement, NO_PUSH)
    return True


def _finish(c, session):
    """Acknowledges what is left on the connection and closes it as the client does: the server
    holds nothing more for the client, unless the step left something aside."""
    session.quiet(0.15)
    session.acknowledge()
    time.sleep(0.05)  # the last acknowledgements reach the server before the close
    session.close()
    c.dirty = False


@checks("S-ACK-1", "S-ACK-2", "S-ACK-4", "S-ACK-7")
def delivery(c):
    """Three pushes, one acknowledgement, a reconnect: the other two come again, in order, before
    a new one, and the acknowledged one does not."""
    if _needs_push(c, "S-ACK-1", "S-ACK-2", "S-ACK-4", "S-ACK-7"):
        return
    session = c.connect()
    a, b, d = c.push("delivery a"), c.push("delivery b"), c.push("delivery c")
    all_three = session.wait_for(session.has(a, b, d))
    c.judge("S-ACK-7", all_three, "three pushes arrived, none acknowledged",
            f"without acknowledgements only {session.ids()} of three pushes arrived within {ARRIVAL:.0f} s")
    if not session.has(a)(session):
        c.failed("S-ACK-1", "the first push never arrived")
        session.close()
        return
    first = session.ids()[0]
    session.acknowledge(1)
    time.sleep(0.1)  # the acknowledgement is read before the connection ends
    session.close()
    rest = [i for i in (a, b, d) if i != first]
    again = c.connect()
    new = c.push("delivery d")
    again.wait_for(again.has(*rest, new))
    again.quiet(QUIET)
    seen = [i for i in again.ids() if i in (a, b, d, new)]
    lost = [i for i in rest if i not in seen]
    c.judge("S-ACK-1", not lost, "the two pushes not acknowledged came again on the next connection",
            f"{lost} were sent, not acknowledged, and not delivered again")
    c.judge("S-ACK-2", first not in seen, f"one 'acknowledgement' acknowledged the push sent first ({first})",
            f"{first}, acknowledged, came again: the acknowledgement was not counted for the oldest push")
    order = [i for i in seen if i in rest + [new]]
    c.judge("S-ACK-4", order == rest + [new], f"redelivered in order before the new one: {order}",
            f"on the next connection the order was {order}, expected {rest + [new]}")
    _finish(c, again)


@checks("S-ACK-3")
def not_acknowledgements(c):
    """A heartbeat, text of no known form, a JSON object without an id and a message of the
    client's: none acknowledges the push waiting."""
    if _needs_push(c, "S-ACK-3"):
        return
    session = c.connect()
    waiting = c.push("not acknowledged")
    if not session.wait_for(session.has(waiting)):
        c.failed("S-ACK-3", "the push never arrived")
        session.close()
        return
    frames = [c.settings.heartbeat_text, "intrapush-check: not an acknowledgement", '{"type":"intrapush-check"}']
    for text in frames:
        session.ws.send_text(text)
    if c.settings.upstream_ack is not None:
        session.send_message(c.new_id("m"), type="intrapush-check")
        frames.append("a message of the client's")
    session.quiet(QUIET)
    session.close()
    again = c.connect()
    came = again.wait_for(again.has(waiting))
    c.judge("S-ACK-3", came, f"after {len(frames)} frames that are no acknowledgement the push came again",
            f"the push was not delivered again after frames that are no acknowledgement ({', '.join(map(repr, frames))})")
    _finish(c, again)


@checks("S-ACK-6")
def extra_acknowledgements(c):
    """Acknowledgements with nothing to acknowledge are ignored, not kept for the next push."""
    if _needs_push(c, "S-ACK-6"):
        return
    session = c.connect()
    session.quiet(0.2)
    for _ in range(2):
        session.ws.send_text(c.settings.ack.fill(c.new_id("none")))
    time.sleep(0.1)  # read before the push is triggered
    waiting = c.push("after stray acknowledgements")
    if not session.wait_for(session.has(waiting)):
        c.failed("S-ACK-6", "the push never arrived")
        session.close()
        return
    session.quiet(0.1)
    session.close()
    again = c.connect()
    came = again.wait_for(again.has(waiting))
    c.judge("S-ACK-6", came, "two acknowledgements with nothing outstanding acknowledged nothing later",
            "an acknowledgement sent when nothing waited acknowledged the push sent after it")
    _finish(c, again)


@checks("S-ACK-8")
def empty_id_ack(c):
    """With {id} in ack_text, the client acknowledges a push without an id with {id} empty (null
    as a JSON value, Appendix A): that acknowledgement counts, by order, for the oldest push."""
    if not c.settings.ack.has_placeholder:
        c.not_checkable("S-ACK-8", "ack_text has no {id}: every acknowledgement counts by order (S-ACK-2)")
        return
    if _needs_push(c, "S-ACK-8"):
        return
    marker = c.new_id("noid")
    carries = lambda item: item.kind == "push" and isinstance(item.text, str) and marker in item.text  # noqa: E731
    session = c.connect()
    session.quiet(0.1)
    c.target.push(json.dumps({"title": "intrapush check", "body": f"a push without an id: {marker}"}, separators=(",", ":")))
    c.dirty = True
    if not session.wait_for(lambda s: any(map(carries, s.items))):
        c.failed("S-ACK-8", "the push without an id never arrived")
        session.close()
        return
    session.acknowledge()
    time.sleep(0.1)  # read before the close
    session.close()
    again = c.connect()
    again.quiet(2 * QUIET)
    text = c.settings.ack.fill(None)
    c.judge("S-ACK-8", not any(map(carries, again.items)), f"{text!r} acknowledged the push without an id",
            f"acknowledged with {text!r} ({{id}} filled for a push without one), the push came again")
    _finish(c, again)


@checks("S-ACK-5")
def no_resend(c):
    """Nothing is sent twice on one connection (over the whole run, and while two pushes wait)."""
    if c.target.push:
        session = c.connect()
        for _ in range(3):  # each new push while the ones before wait for their acknowledgement
            pushed = c.push("no resend")
            session.wait_for(session.has(pushed))
        session.quiet(0.5)
        _finish(c, session)
    if c.duplicates:
        c.failed("S-ACK-5", f"sent {c.duplicates[:3]} twice on one connection")
    elif c.target.push:
        c.held("S-ACK-5", "no push came twice on one connection in the whole run")
    else:
        c.not_checkable("S-ACK-5", NO_PUSH)


@checks("S-SIZE-2")
def oversized(c):
    """A client that closes with 1009 for a push it cannot take is not sent that push again."""
    if _needs_push(c, "S-SIZE-2"):
        return
    session = c.connect(max_message_size=4096)
    session.quiet(0.1)
    large = c.push("too large", size=8192)
    small = c.push("small, after the large one")
    session.ws.ended.wait(ARRIVAL)  # the client's 1009, the server's answer, the end of the stream
    closed_for = [e for e in session.ws.log if e.kind == "failed"]
    session.ws.abort()
    if not closed_for:
        c.failed("S-SIZE-2", "the large push never came")
        return
    again = c.connect(max_message_size=4096)
    again.wait_for(again.has(small))
    again.quiet(QUIET)
    if again.ended and not again.has(small)(again):
        c.failed("S-SIZE-2", "after the client's 1009 the large push was sent again first")
    elif large in again.ids():
        c.failed("S-SIZE-2", "after the client's 1009 the large push was sent again")
    elif small not in again.ids():
        c.failed("S-SIZE-2", "the push after the large one was not delivered after the 1009")
    else:
        c.held("S-SIZE-2", "after the client's 1009 the large push was set aside; the next one came")
    if not again.ended:
        _finish(c, again)
    c.dirty = True


@checks("S-CLOSE-2", "S-CLOSE-3")
def server_close(c):
    """Asked to close, the server stops sending, waits for what it sent to be acknowledged, then
    closes with a code that says why; what it did not send comes on the next connection. The
    requests to close and to push are made on threads of their own while the client reads and
    acknowledges: a hook may return only once the server closed."""
    if not c.target.close:
        for statement in ("S-CLOSE-2", "S-CLOSE-3"):
            c.not_checkable(statement, "give --close-url or --close-command: the checker needs the server to close")
        return
    if _needs_push(c, "S-CLOSE-2", "S-CLOSE-3"):
        return
    session = c.connect(keep_alive=True)  # the hooks may take longer than the server's idle timeout
    a, b = c.push("close a"), c.push("close b")
    if not session.wait_for(session.has(a, b)):
        c.failed("S-CLOSE-2", "the pushes never arrived")
        session.close()
        return
    session.acknowledge(1)
    errors = []

    def background(hook, *arguments):
        def run():
            try:
                hook(*arguments)
            except Exception as error:  # the step reports it
                errors.append(f"{type(error).__name__}: {error}")
        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        return thread

    closer = background(c.target.close, 1001)
    closer.join(0.3)  # the request reached the server (or the hook waits for the close)
    late = c.new_id()
    pusher = background(c.target.push, c.push_text(late, "asked after the close"))
    c.dirty = True
    session.quiet(0.8)
    early = session.ws.close_received
    sent_after = late in session.ids()
    session.acknowledge()
    session.wait_for(lambda s: s.ws.close_received is not None, ARRIVAL)
    code = session.ws.close_received
    session.ws.ended.wait(3)
    session.ws.abort()
    closer.join(ARRIVAL)
    pusher.join(ARRIVAL)
    if code is None:
        hooks = f" (the hooks: {'; '.join(errors)})" if errors else ""
        c.failed("S-CLOSE-2", f"asked to close, the server sent no close frame within 5 s of the last acknowledgement{hooks}")
        c.not_checkable("S-CLOSE-3", "no close frame")
    else:
        c.judge("S-CLOSE-3", code in (1001, 1012, 1013), f"closed with {code}",
                f"closed with {code}, not 1001 (going away) or 1012/1013 (restarting)")
        if early is not None:
            c.failed("S-CLOSE-2", "the close frame came while a push was still unacknowledged: it comes back on the next connection")
        elif sent_after:
            c.failed("S-CLOSE-2", "a push was sent after the server was asked to close")
        else:
            c.held("S-CLOSE-2", "no push after the request to close; the close frame once the last push was acknowledged")
    again = c.connect()
    came = again.wait_for(again.has(late))
    again.quiet(0.2)
    if not came:
        c.failed("S-CLOSE-2", "the push queued while the connection closed was not delivered on the next one")
    if a in again.ids() or b in again.ids():
        c.failed("S-CLOSE-2", "pushes acknowledged before the close came again")
    _finish(c, again)


@checks("S-PUSH-1")
def text_frames(c):
    """Over the whole run: every text message was UTF-8, none in more than 1,024 fragments."""
    invalid = sum(session.ws.invalid_text for session in c.sessions)
    messages = sum(1 for session in c.sessions for item in session.items)
    if invalid:
        c.failed("S-PUSH-1", f"{invalid} text message(s) were not UTF-8 (the client closes with 1007)")
    elif c.too_fragmented:
        c.failed("S-PUSH-1", f"{c.too_fragmented} message(s) came in more than 1,024 fragments (the client closes with 1009)")
    elif messages:
        c.held("S-PUSH-1", f"{messages} messages in the run, every text one UTF-8")
    else:
        c.not_checkable("S-PUSH-1", "no message came in the run")
