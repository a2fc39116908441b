# SPDX-License-Identifier: Apache-2.0
"""The conformance checker: a Varlink client that knows a service only from its introspection
(org.varlink.service.GetInfo and GetInterfaceDescription, parsed by PyPI varlink) calls every
method of every interface with valid parameters and with invalid ones, and checks every message
that comes back against the interface it called: an error must be declared by that interface or
by org.varlink.service, with parameters of its declared type; a reply must be of the method's
declared output type; an invalid call must be refused with InvalidParameter naming what was
wrong. It knows nothing of any particular interface: plausible values come from hints named
like parameters, given by its caller.

Valid calls go through PyPI's client (its parameter filter, framing and reading); invalid ones
are written as raw JSON on the client's connection, since its filter would drop or refuse them.
Every message is checked as it came off the socket, not as the client's filter hands it back.
"""
import json
import select
from collections import Counter
from dataclasses import dataclass, field

import varlink

from interface_types import InterfaceTypes, same_parameter

SERVICE = "org.varlink.service"
INVALID_PARAMETER = SERVICE + ".InvalidParameter"
ENVELOPE = {"parameters", "continues", "error"}


class RecordingHandler(varlink.SimpleClientInterfaceHandler):
    """PyPI's client for one interface on one connection, keeping every message it reads as it
    came: the client hands back only what its own filter of the declared type keeps."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.received = []

    def _next_message(self):
        for message in super()._next_message():
            self.received.append(message)
            yield message


@dataclass
class Call:
    """One call and what came back. `expect` is, for a call that must be refused, (the error,
    its parameter naming the culprit, the names accepted for it)."""
    interface: str
    method: str
    label: str
    parameters: dict
    more: bool = False
    raw: bool = False
    expect: tuple = None
    received: list = field(default_factory=list)
    outcome: str = ""

    @property
    def qualified(self):
        return f"{self.interface}.{self.method}"

    def __str__(self):
        text = json.dumps(self.parameters)
        text = text if len(text) <= 160 else text[:157] + "..."
        return f"{self.qualified} [{self.label}{', more' if self.more else ''}] {text}"


@dataclass
class Violation:
    method: str
    kind: str
    text: str

    def __str__(self):
        return f"{self.kind}: {self.text}"


class Checker:
    """Runs the check against the service at `address` ("unix:PATH"); `run` returns the
    violations. `hints` name plausible values by parameter name (see InterfaceTypes.sample);
    `on_silence` is called once when a call with more hears nothing for `idle` seconds (a
    subscription then has something to say); `timeout` bounds the wait for any reply."""

    def __init__(self, address, hints, on_silence=None, idle=1.0, timeout=15.0, out=print):
        self.client = varlink.Client(address=address)
        self.client.handler = RecordingHandler
        self.hints = dict(hints)
        self.on_silence = on_silence
        self.idle = idle
        self.timeout = timeout
        self.out = out
        self.interfaces = {}
        self.violations = []
        self.notes = []
        self.stats = {}

    def run(self):
        for call in self._learn():
            self._check(call)
        for types in self.interfaces.values():
            for method in types.methods():
                self._check_method(types, method)
        self._probe_unknown_names()
        self._summary()
        return self.violations

    # --- learning the service ---------------------------------------------------------------------

    def _learn(self):
        """GetInfo, then GetInterfaceDescription of each interface it names (and of
        org.varlink.service, whose errors every method may answer), each parsed by PyPI varlink:
        the only source of what the service offers. PyPI's own copy of org.varlink.service only
        places these calls; their replies are checked once the service's own description is in."""
        info_call = Call(SERVICE, "GetInfo", "bootstrap", {})
        self._execute(info_call, "valid")
        info = self._last_parameters(info_call)
        names = list(info.get("interfaces") or [])
        if not names:
            raise RuntimeError(f"GetInfo named no interfaces: {info_call.received}")
        self.hints.setdefault("interface", next((name for name in names if name != SERVICE), names[0]))
        calls = [info_call]
        for name in names + ([SERVICE] if SERVICE not in names else []):
            call = Call(SERVICE, "GetInterfaceDescription", "bootstrap", {"interface": name})
            self._execute(call, "valid")
            calls.append(call)
            parsed = varlink.Interface(self._last_parameters(call)["description"])
            if parsed.name != name:
                self._violate(call, "description", f"{call}: the description is of {parsed.name}")
            self.client.add_interface(parsed)
            self.interfaces[parsed.name] = InterfaceTypes(parsed)
        self.interfaces[SERVICE] = self.interfaces.pop(SERVICE)  # checked last, like the standard it is
        return calls

    @staticmethod
    def _last_parameters(call):
        if not call.received:
            raise RuntimeError(f"{call}: no reply ({call.outcome})")
        message = json.loads(call.received[-1])
        if "error" in message:
            raise RuntimeError(f"{call}: {message}")
        return message.get("parameters") or {}

    # --- one method -------------------------------------------------------------------------------

    def _check_method(self, types, method):
        """Its valid calls (see `_valid_choices`), without and with more, then its invalid ones,
        built from the full call one mistake at a time; those with more when the method answered
        ExpectedMore without, so that the parameters are what is refused."""
        requires_more = False
        for variant, chosen in self._valid_choices(types, method):
            for more in (False, True):
                parameters = self._valid_parameters(types, method, chosen)
                call = Call(types.name, method.name, f"valid, {variant}", parameters, more=more)
                self._execute(call, "valid")
                self._check(call)
                requires_more |= not more and self._error_of(call) == SERVICE + ".ExpectedMore"
        base = types.sample(method.in_type, "", self.hints, "full")
        for label, parameters, expected in types.mutations(method.in_type, base):
            call = Call(types.name, method.name, f"invalid: {label}", parameters, more=requires_more, raw=True,
                        expect=(INVALID_PARAMETER, "parameter", expected))
            self._execute(call, "invalid")
            self._check(call)
        self._line(f"{types.name}.{method.name}")

    @staticmethod
    def _valid_choices(types, method):
        """(name, optional parameters given) of each valid call: the required parameters alone,
        with each optional one, and with all of them; each set once. One at a time finds what
        the types do not say: MarkRead takes ids or all, but neither none nor both."""
        fields = types.resolve(method.in_type).fields
        optional = [name for name, field_type in fields.items() if types.optional(field_type)]
        choices = [("minimal", ())] + [(f"only {name}", (name,)) for name in optional] + [("full", tuple(optional))]
        seen = set()
        for variant, chosen in choices:
            if frozenset(chosen) not in seen:
                seen.add(frozenset(chosen))
                yield variant, chosen

    def _valid_parameters(self, types, method, chosen):
        """The required parameters and the `chosen` optional ones, made afresh (a hint may make a
        new value each time: a message id). Sampled as "minimal" when nothing optional is chosen,
        which a hint may tell apart."""
        fields = types.resolve(method.in_type).fields
        sample = types.sample(method.in_type, "", self.hints, "full" if chosen else "minimal")
        return {name: value for name, value in sample.items() if name in chosen or not types.optional(fields[name])}

    def _probe_unknown_names(self):
        """A method no interface declares, in each interface, and an interface nobody serves:
        MethodNotFound and InterfaceNotFound, naming them."""
        for name in self.interfaces:
            qualified = f"{name}.ConformanceNoSuchMethod"
            call = Call(name, "ConformanceNoSuchMethod", "probe: unknown method", {}, raw=True,
                        expect=(SERVICE + ".MethodNotFound", "method", (qualified, "ConformanceNoSuchMethod")))
            self._execute(call, "probe")
            self._check(call)
        call = Call("io.conformance.NoSuchInterface", "Ping", "probe: unknown interface", {}, raw=True,
                    expect=(SERVICE + ".InterfaceNotFound", "interface", ("io.conformance.NoSuchInterface",)))
        self._execute(call, "probe")
        self._check(call)
        self._line("unknown names")

    # --- making a call ----------------------------------------------------------------------------

    def _execute(self, call, kind):
        """Writes the call on a connection of its own and reads what comes back, up to the last
        reply, or until the service is silent (`idle` with more, `timeout` without) or closes."""
        connection = self.client.open_connection()
        connection.settimeout(self.timeout)
        types = self.interfaces.get(call.interface) or self.interfaces.get(SERVICE)
        handler = RecordingHandler(types.interface if types else self.client._interfaces[SERVICE], connection)
        try:
            if call.raw or call.more:
                handler._send_message(self._encoded(call, types))
                call.outcome = self._read(handler, call.more)
            else:
                getattr(handler, call.method)(**call.parameters)
        except varlink.VarlinkError as error:
            if not handler.received:  # refused by the client itself, before anything was sent
                call.outcome = f"PyPI's client refused the call: {error}"
        except (OSError, ValueError) as error:
            call.outcome = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
        finally:
            call.received = list(handler.received)
            handler.close()
        self._count(call, kind)

    @staticmethod
    def _encoded(call, types):
        """The call's message: for a valid call as PyPI's client encodes it (`_call_more` does
        the same, but blocks on the first reply, which a subscription may not send yet)."""
        parameters = call.parameters
        if not call.raw:
            method = types.method(call.method)
            parameters = types.interface.filter_params("client.call", method.in_type, False, (), dict(parameters))
        message = {"method": call.qualified, "parameters": parameters}
        if call.more:
            message["more"] = True
        return json.dumps(message, cls=varlink.VarlinkEncoder).encode()

    def _read(self, handler, more):
        """Replies until the last one; an empty string when it came, else why reading stopped."""
        nudged = False
        while True:
            if not self._readable(handler, self.idle if more else self.timeout):
                if more and not handler.received and not nudged and self.on_silence:
                    self.on_silence()
                    nudged = True
                    continue
                return f"silent for {self.idle if more else self.timeout:g} s"
            try:
                _, continues = handler._next_varlink_message()
            except varlink.VarlinkError:
                return ""
            except BrokenPipeError:
                return "the service closed the connection"
            if not continues:
                return ""

    @staticmethod
    def _readable(handler, timeout):
        if b"\0" in handler._in_buffer:
            return True
        return bool(select.select([handler._connection], [], [], timeout)[0])

    # --- checking what came back ------------------------------------------------------------------

    def _check(self, call):
        messages = []
        for text in call.received:
            try:
                messages.append(json.loads(text))
            except ValueError:
                self._violate(call, "envelope", f"{call}: a message that is not JSON: {text[:200]!r}")
        for message in messages:
            self._check_message(call, message)
        last = messages[-1] if messages else None
        if call.expect:
            self._check_refusal(call, last)
        elif last is None and not call.more:
            self._violate(call, "no-reply", f"{call}: no reply ({call.outcome or 'nothing read'})")
        elif last is not None and last.get("error") == INVALID_PARAMETER:
            # Declared, so no breach of the claim; but a rule the types do not say: shown.
            self.notes.append(f"{call}: a call of the declared input type refused: {json.dumps(last)}")

    def _check_message(self, call, message):
        """One message against the interface called: its envelope, then an error's name and
        parameters, or a reply's parameters."""
        if not isinstance(message, dict):
            return self._violate(call, "envelope", f"{call}: a message that is not an object: {json.dumps(message)[:200]}")
        if set(message) - ENVELOPE:
            self._violate(call, "envelope", f"{call}: undeclared members {sorted(set(message) - ENVELOPE)}")
        if message.get("continues") and not call.more:
            self._violate(call, "envelope", f"{call}: a reply that continues, to a call without more")
        parameters = message.get("parameters") or {}
        if "error" in message:
            return self._check_error(call, message["error"], parameters)
        types = self.interfaces.get(call.interface)
        method = types.method(call.method) if types else None
        if method is None:
            return self._violate(call, "reply-type", f"{call}: a reply to a method that is not declared: {json.dumps(message)}")
        for path, problem in types.problems(parameters, method.out_type):
            self._violate(call, "reply-type", f"{call}: reply {path}: {problem}; the reply: {json.dumps(parameters)[:300]}")

    def _check_error(self, call, name, parameters):
        """An error must be declared by the interface called or by org.varlink.service."""
        for owner in (self.interfaces.get(call.interface), self.interfaces[SERVICE]):
            if owner is not None and name in owner.errors():
                for path, problem in owner.problems(parameters, owner.errors()[name]):
                    self._violate(call, "error-type", f"{call}: error {name} {path}: {problem}; {json.dumps(parameters)}")
                return
        self._violate(call, "undeclared-error",
                      f"{call}: error {name} {json.dumps(parameters)} is declared neither by {call.interface} nor by {SERVICE}")

    def _check_refusal(self, call, last):
        """A call made wrong on purpose must get the expected error, naming what was wrong."""
        error, key, accepted = call.expect
        accepted = accepted if isinstance(accepted, tuple) else (accepted,)
        if last is None:
            return self._violate(call, "invalid-accepted", f"{call}: no reply ({call.outcome or 'nothing read'}); expected {error}")
        if "error" not in last:
            return self._violate(call, "invalid-accepted", f"{call}: answered {json.dumps(last)[:300]}; expected {error}")
        named = (last.get("parameters") or {}).get(key)
        if last["error"] != error or not any(same_parameter(named, name) for name in accepted):
            self._violate(call, "wrong-refusal",
                          f"{call}: expected {error} with {key} {accepted[0]!r}, got {last['error']} {json.dumps(last.get('parameters'))}")

    # --- the report -------------------------------------------------------------------------------

    def _violate(self, call, kind, text):
        self.violations.append(Violation(call.qualified, kind, text))
        key = "unknown names" if call.label.startswith("probe") else call.qualified
        self.stats.setdefault(key, Counter())["violations"] += 1

    def _error_of(self, call):
        try:
            return json.loads(call.received[-1]).get("error") if call.received else None
        except ValueError:
            return None

    def _count(self, call, kind):
        key = "unknown names" if kind == "probe" else call.qualified
        counts = self.stats.setdefault(key, Counter())
        counts[kind] += 1
        counts["replies"] += len(call.received)

    def _line(self, key):
        counts = self.stats.get(key, Counter())
        verdict = f"{counts['violations']} violations" if counts["violations"] else "ok"
        calls = f"probes {counts['probe']:3}" if key == "unknown names" else \
            f"valid {counts['valid']:3}  invalid {counts['invalid']:3}"
        self.out(f"  {key:<45} {calls}  replies {counts['replies']:3}  {verdict}")

    def _summary(self):
        total = sum(self.stats.values(), Counter())
        methods = sum(len(types.methods()) for types in self.interfaces.values())
        self.out(f"{methods} methods in {len(self.interfaces)} interfaces: {total['valid']} valid and {total['invalid']} "
                 f"invalid calls, {total['probe']} probes, {total['replies']} replies checked: "
                 f"{len(self.violations) or 'no'} violations")
        for note in self.notes:
            self.out(f"  NOTE {note}")
        for violation in self.violations:
            self.out(f"  VIOLATION {violation}")
