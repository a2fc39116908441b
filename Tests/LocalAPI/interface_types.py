# SPDX-License-Identifier: Apache-2.0
"""The types of one Varlink interface as PyPI varlink's parser (`varlink.Interface`, in
varlink/scanner.py) reads them, and what the conformance check needs of them: whether a JSON
value is of a type (and where not), a plausible value of a type, and the ways to get a call's
parameters wrong. Everything is worked out from the parsed description, so that the check knows
nothing of the service but what its introspection says.

Paths name a value the way the daemon's InvalidParameter does: `filter.grep`, and for an array's
element `ids[0]` (compared without the index: see `same_parameter`).
"""
import json
import re

from varlink.scanner import _Alias, _Array, _CustomType, _Dict, _Enum, _Error, _Maybe, _Method, _Object, _Struct

# One value of each JSON kind: a parameter's wrong values are those of these that its type refuses.
PALETTE = (7, 1.5, "text", True, [], {})
# A parameter no interface declares.
UNKNOWN = "conformance_unknown"
# A plausible value of each scalar type, when no hint names the parameter.
SCALAR_SAMPLES = {"bool": True, "int": 1, "float": 1.5, "string": "conformance", "object": {}, "set": {"a": {}}}


def join(path, name):
    return f"{path}.{name}" if path else name


def same_parameter(reported, expected):
    """Whether an InvalidParameter's `parameter` names the value we got wrong; an index in an
    array (`ids[0]`, `ids[]`) may be given or not."""
    strip = lambda path: re.sub(r"\[\d*\]", "", path or "")  # noqa: E731
    return isinstance(reported, str) and strip(reported) == strip(expected)


def kind_of(value):
    """A JSON value's kind, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a bool"
    if isinstance(value, int):
        return "an integer"
    return {float: "a number", str: "a string", list: "an array", dict: "an object"}.get(type(value), type(value).__name__)


def scalar_kind(vtype):
    """The parser stands for its scalar types with an instance of them (`int()` for int, `str()`
    for string, `set()` for `[string]()`); bool must be asked before int, whose subclass it is."""
    for kind, python_type in (("bool", bool), ("int", int), ("float", float), ("string", str), ("set", set)):
        if type(vtype) is python_type:
            return kind
    if isinstance(vtype, _Object):
        return "object"
    raise TypeError(f"not a Varlink type: {vtype!r}")


def scalar_matches(kind, value):
    """Whether a JSON value is of a scalar type. An int is any integral number (JSON does not tell
    7 from 7.0); a bool is never a number."""
    if isinstance(value, bool):
        return kind == "bool"
    return {
        "bool": False,
        "int": isinstance(value, int) or (isinstance(value, float) and value.is_integer()),
        "float": isinstance(value, (int, float)),
        "string": isinstance(value, str),
        "object": isinstance(value, dict),
        "set": isinstance(value, dict) and all(member == {} for member in value.values()),
    }[kind]


class InterfaceTypes:
    """One parsed interface: its methods, errors and named types, and the type questions above."""

    def __init__(self, interface):
        self.interface = interface
        self.name = interface.name

    def methods(self):
        return [member for member in self.interface.members.values() if isinstance(member, _Method)]

    def method(self, name):
        member = self.interface.members.get(name)
        return member if isinstance(member, _Method) else None

    def errors(self):
        """The qualified names of the errors it declares, with their parameters' types."""
        return {f"{self.name}.{member.name}": member.type for member in self.interface.members.values()
                if isinstance(member, _Error)}

    def resolve(self, vtype):
        """A named type's definition (`Filter` is its struct); any other type as it is."""
        while isinstance(vtype, _CustomType):
            member = self.interface.members.get(vtype.name)
            if not isinstance(member, _Alias):
                raise LookupError(f"{self.name} uses the type {vtype.name} but does not declare it")
            vtype = member.type
        return vtype

    def optional(self, vtype):
        return isinstance(self.resolve(vtype), _Maybe)

    # --- conformance ------------------------------------------------------------------------------

    def problems(self, value, vtype, path=""):
        """Where `value` is not of `vtype`: (path, what is wrong) pairs, none when it conforms."""
        vtype = self.resolve(vtype)
        if isinstance(vtype, _Maybe):
            return [] if value is None else self.problems(value, vtype.element_type, path)
        if value is None:
            return [(path, "null, but not optional")]
        if isinstance(vtype, _Struct):
            return self._struct_problems(value, vtype, path)
        if isinstance(vtype, _Array):
            if not isinstance(value, list):
                return [(path, f"{kind_of(value)}, not an array")]
            return [problem for index, element in enumerate(value)
                    for problem in self.problems(element, vtype.element_type, f"{path}[{index}]")]
        if isinstance(vtype, _Dict):
            if not isinstance(value, dict):
                return [(path, f"{kind_of(value)}, not a map")]
            return [problem for key, member in value.items()
                    for problem in self.problems(member, vtype.element_type, join(path, key))]
        if isinstance(vtype, _Enum):
            return [] if value in list(vtype.fields) else [(path, f"{json.dumps(value)}, not one of {list(vtype.fields)}")]
        kind = scalar_kind(vtype)
        return [] if scalar_matches(kind, value) else [(path, f"{kind_of(value)}, not {kind}")]

    def _struct_problems(self, value, struct, path):
        if not isinstance(value, dict):
            return [(path or "parameters", f"{kind_of(value)}, not an object")]
        found = [(join(path, key), "not declared") for key in value if key not in struct.fields]
        for name, field_type in struct.fields.items():
            if name in value:
                found += self.problems(value[name], field_type, join(path, name))
            elif not self.optional(field_type):
                found.append((join(path, name), "missing, but not optional"))
        return found

    # --- plausible values -------------------------------------------------------------------------

    def sample(self, vtype, path="", hints=None, variant="full"):
        """A value of `vtype`. A hint named like the field (its last path component) wins: a value,
        or a function of the variant. Structs get their required fields, and with the variant
        "full" their optional ones too."""
        hints = hints or {}
        name = path.rsplit(".", 1)[-1]
        if name in hints:
            hint = hints[name]
            return hint(variant) if callable(hint) else hint
        vtype = self.resolve(vtype)
        if isinstance(vtype, _Maybe):
            return self.sample(vtype.element_type, path, hints, variant)
        if isinstance(vtype, _Struct):
            return {field: self.sample(field_type, join(path, field), hints, variant)
                    for field, field_type in vtype.fields.items()
                    if variant == "full" or not self.optional(field_type)}
        if isinstance(vtype, _Array):
            return [self.sample(vtype.element_type, path + "[]", hints, variant)]
        if isinstance(vtype, _Dict):
            return {"key": self.sample(vtype.element_type, join(path, "key"), hints, variant)}
        if isinstance(vtype, _Enum):
            return list(vtype.fields)[0]
        return SCALAR_SAMPLES[scalar_kind(vtype)]

    # --- invalid parameters -----------------------------------------------------------------------

    def wrong_values(self, vtype):
        """The values of the palette that `vtype` refuses (null is a value an optional takes)."""
        return [value for value in PALETTE if self.problems(value, vtype, "x")]

    def mutations(self, struct, value, path=""):
        """The ways to get the struct `value` (of type `struct`, well formed) wrong, one at a time:
        (what was done, the wrong value, the path the service should name). An unknown member;
        each required member missing or null; each member of a wrong type; and the same inside
        the members that are structs or arrays."""
        struct = self.resolve(struct)
        unknown = join(path, UNKNOWN)
        found = [(f"unknown {unknown}", dict(value, **{UNKNOWN: 1}), unknown)]
        for name, field_type in struct.fields.items():
            where = join(path, name)
            if not self.optional(field_type):
                found.append((f"{where} missing", {key: v for key, v in value.items() if key != name}, where))
                found.append((f"{where} null", dict(value, **{name: None}), where))
            found += [(f"{where} as {json.dumps(wrong)}", dict(value, **{name: wrong}), where)
                      for wrong in self.wrong_values(field_type)]
            found += [(label, dict(value, **{name: inner}), expected)
                      for label, inner, expected in self._inner_mutations(field_type, value.get(name), where)]
        return found

    def _inner_mutations(self, vtype, current, where):
        """The mutations inside a member: a struct's own, an array's element of a wrong type."""
        vtype = self.resolve(vtype)
        if isinstance(vtype, _Maybe):
            vtype = self.resolve(vtype.element_type)
        if isinstance(vtype, _Struct):
            base = current if isinstance(current, dict) else self.sample(vtype, where)
            return self.mutations(vtype, base, where)
        if isinstance(vtype, _Array):
            element = current[0] if isinstance(current, list) and current else self.sample(vtype.element_type, where + "[]")
            found = [(f"{where}[0] as {json.dumps(wrong)}", [wrong], f"{where}[0]")
                     for wrong in self.wrong_values(vtype.element_type)]
            found += [(label, [inner], expected)
                      for label, inner, expected in self._inner_mutations(vtype.element_type, element, f"{where}[0]")]
            return found
        return []
