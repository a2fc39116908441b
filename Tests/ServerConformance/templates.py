# SPDX-License-Identifier: Apache-2.0
"""A frame template's placeholder filled and read back as the protocol says (docs/protocol.md,
Appendix A): a template that parses as a JSON object, array or string once each placeholder is
replaced by 0 (and still parses with any value there) is JSON-shaped; there a placeholder inside a string literal takes the value escaped
as the string's content, one outside takes a JSON value; any other template takes the text as is.
"""
import json


class Template:
    def __init__(self, text, placeholder="{id}"):
        self.text, self.placeholder = text, placeholder
        self.literals = text.split(placeholder)
        count = len(self.literals) - 1
        states = self._string_states() if count else None
        self.slots = ["raw"] * count if states is None else ["string" if s else "value" for s in states]
        # A placeholder glued to a token ([2{id}] reads as [20]) is no JSON value of its own.
        if states is not None:
            try:
                for value, is_number in (('"\\\x01', False), ("1", True), (None, False)):
                    json.loads(self.fill(value, is_number))
            except ValueError:
                self.slots = ["raw"] * count

    def _string_states(self):
        try:
            parsed = json.loads("0".join(self.literals))
        except ValueError:
            return None
        if not isinstance(parsed, (dict, list, str)):
            return None
        states, in_string, escaped = [], False, False
        for index, literal in enumerate(self.literals):
            if index:
                states.append(in_string)
            for char in literal:
                if escaped:
                    escaped = False
                elif in_string and char == "\\":
                    escaped = True
                elif char == '"':
                    in_string = not in_string
        return states

    @property
    def has_placeholder(self):
        return bool(self.slots)

    def fill(self, value, is_number=False):
        """`value` a string (an id's text), `is_number` when it was a JSON number; None for none."""
        out = [self.literals[0]]
        for slot, literal in zip(self.slots, self.literals[1:]):
            if slot == "value":
                out.append("null" if value is None else value if is_number else json.dumps(value, ensure_ascii=False))
            elif value is not None:
                out.append(json.dumps(value, ensure_ascii=False)[1:-1] if slot == "string" else value)
            out.append(literal)
        return "".join(out)

    def read(self, frame, allows_empty=False):
        """The value a frame of this template's form carries (one placeholder), else None."""
        if len(self.slots) != 1:
            return None
        prefix, suffix = self.literals
        if len(frame) < len(prefix) + len(suffix) + (0 if allows_empty else 1):
            return None
        if not frame.startswith(prefix) or not frame.endswith(suffix):
            return None
        middle = frame[len(prefix):len(frame) - len(suffix)]
        try:
            if self.slots[0] == "string":
                value = json.loads('"' + middle + '"')
            elif self.slots[0] == "value":
                value = json.loads(middle)
                value = "" if value is None and allows_empty else value
                value = middle if isinstance(value, (int, float)) and not isinstance(value, bool) else value
            else:
                value = middle
        except ValueError:
            return None
        return value if isinstance(value, str) and (allows_empty or value) else None
