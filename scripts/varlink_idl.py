# SPDX-License-Identifier: Apache-2.0
"""The Varlink IDL (varlink.org, "Interface Definition"), read into types, methods and errors for
scripts/varlink_generate.py. Comment lines before a member or a field are its doc.
"""
import os
import re

# The IDL's scalar types.
SCALARS = ("bool", "int", "float", "string", "object")


class IDLError(Exception):
    pass


# ---- The IDL ----------------------------------------------------------------------------------

class Type:
    """One Varlink type: kind is a scalar name, 'named', 'struct', 'enum', 'optional', 'array' or 'map'."""

    def __init__(self, kind, name=None, fields=None, values=None, element=None):
        self.kind, self.name, self.fields, self.values, self.element = kind, name, fields, values, element


class Field:
    def __init__(self, name, type_, doc):
        self.name, self.type, self.doc = name, type_, doc


class Member:
    """A `type`, `method` or `error` of an interface, with the comment lines before it."""

    def __init__(self, keyword, name, doc, type_=None, parameters=None, reply=None):
        self.keyword, self.name, self.doc = keyword, name, doc
        self.type, self.parameters, self.reply = type_, parameters, reply


class Interface:
    def __init__(self, name, doc, members, text):
        self.name, self.doc, self.members, self.text = name, doc, members, text

    def of(self, keyword):
        return [member for member in self.members if member.keyword == keyword]


TOKEN = re.compile(r"\s*(?:(#[^\n]*)|(->|\[string\]|\[\]|[():,?])|([A-Za-z_][A-Za-z0-9_]*))")
INTERFACE_NAME = re.compile(r"[A-Za-z]([-]*[A-Za-z0-9])*(\.[A-Za-z0-9]([-]*[A-Za-z0-9])*)+$")
MEMBER_NAME = re.compile(r"[A-Z][A-Za-z0-9]*$")
FIELD_NAME = re.compile(r"[A-Za-z](_?[A-Za-z0-9])*$")


class Parser:
    def __init__(self, text, path):
        self.text, self.path, self.position = text, path, 0
        self.comments = []

    def fail(self, message):
        line = self.text.count("\n", 0, self.position) + 1
        raise IDLError(f"{self.path}:{line}: {message}")

    def next(self, keep_comments=False):
        """The next token (a word or punctuation); comment lines are collected as the next member's doc."""
        while True:
            if self.text[self.position:].strip() == "":
                self.position = len(self.text)
                return None
            match = TOKEN.match(self.text, self.position)
            if not match:
                self.fail(f"unexpected {self.text[self.position:].split()[0]!r}")
            gap = self.text[self.position:match.start(1) if match.group(1) else match.end()]
            if gap.count("\n") > 1:
                self.comments = []  # a blank line ends a comment block
            self.position = match.end()
            if match.group(1) is not None:
                self.comments.append(match.group(1)[1:].strip())
                continue
            return match.group(2) or match.group(3)

    def peek(self):
        saved, comments = self.position, list(self.comments)
        token = self.next()
        self.position, self.comments = saved, comments
        return token

    def expect(self, token):
        got = self.next()
        if got != token:
            self.fail(f"expected {token!r}, found {got!r}")

    def take_doc(self):
        doc, self.comments = self.comments, []
        return doc

    def interface(self):
        self.expect("interface")
        doc = self.take_doc()
        line_end = self.text.find("\n", self.position)
        name = self.text[self.position:line_end if line_end >= 0 else None].strip()
        if not INTERFACE_NAME.match(name):
            self.fail(f"{name!r} is not an interface name")
        self.position = line_end if line_end >= 0 else len(self.text)
        members, names = [], set()
        while (keyword := self.next()) is not None:
            doc_of_member = self.take_doc()
            if keyword not in ("type", "method", "error"):
                self.fail(f"expected type, method or error, found {keyword!r}")
            member_name = self.next()
            if not member_name or not MEMBER_NAME.match(member_name):
                self.fail(f"{member_name!r} is not a member name (a capital letter, then letters and digits)")
            if member_name in names:
                self.fail(f"{member_name} is declared twice")
            names.add(member_name)
            if keyword == "type":
                members.append(Member(keyword, member_name, doc_of_member, type_=self.struct_or_enum()))
            elif keyword == "error":
                members.append(Member(keyword, member_name, doc_of_member, type_=self.struct()))
            else:
                parameters = self.struct()
                self.expect("->")
                members.append(Member(keyword, member_name, doc_of_member, parameters=parameters, reply=self.struct()))
        return Interface(name, doc, members, self.text)

    def struct_or_enum(self):
        """`(a: int, b: string)` or `(one, two)`; `()` is an empty struct."""
        saved = (self.position, list(self.comments))
        self.expect("(")
        first = self.next()
        second = self.next() if first not in (")", None) else None
        self.position, self.comments = saved
        if first != ")" and second in (",", ")"):
            return self.enum()
        return self.struct()

    def enum(self):
        self.expect("(")
        values = []
        while True:
            value = self.next()
            if not value or not FIELD_NAME.match(value):
                self.fail(f"{value!r} is not an enum value")
            if value in values:
                self.fail(f"the enum value {value} is declared twice")
            values.append(value)
            separator = self.next()
            if separator == ")":
                return Type("enum", values=values)
            if separator != ",":
                self.fail(f"expected ',' or ')', found {separator!r}")

    def struct(self):
        self.expect("(")
        fields = []
        if self.peek() == ")":
            self.next()
            return Type("struct", fields=fields)
        while True:
            name = self.next()  # the comment lines before it are its doc
            doc = self.take_doc()
            if not name or not FIELD_NAME.match(name):
                self.fail(f"{name!r} is not a field name")
            if any(field.name == name for field in fields):
                self.fail(f"the field {name} is declared twice")
            self.expect(":")
            fields.append(Field(name, self.type(), doc))
            separator = self.next()
            if separator == ")":
                return Type("struct", fields=fields)
            if separator != ",":
                self.fail(f"expected ',' or ')', found {separator!r}")

    def type(self):
        token = self.peek()
        if token == "?":
            self.next()
            if self.peek() == "?":
                self.fail("a type is optional once")
            return Type("optional", element=self.type())
        if token == "[]":
            self.next()
            return Type("array", element=self.type())
        if token == "[string]":
            self.next()
            return Type("map", element=self.type())
        if token == "(":
            return self.struct_or_enum()
        token = self.next()
        if token in SCALARS:
            return Type(token)
        if token and MEMBER_NAME.match(token):
            return Type("named", name=token)
        self.fail(f"{token!r} is not a type")


def parse(path, shown_as=None):
    """The interface in the file `path`; errors name the file as `shown_as` (default: `path`)."""
    with open(path, encoding="utf-8") as file:
        text = file.read()
    shown = shown_as or path
    interface = Parser(text, shown).interface()
    if os.path.basename(path) != interface.name + ".varlink":
        raise IDLError(f"{shown}: the file of interface {interface.name} is named {interface.name}.varlink")
    types = {member.name for member in interface.of("type")}

    def check(type_, where):
        if type_.kind == "named" and type_.name not in types:
            raise IDLError(f"{shown}: {where} names the type {type_.name}, which the interface does not declare")
        for field in type_.fields or []:
            check(field.type, f"{where}.{field.name}")
        if type_.element:
            check(type_.element, where)

    for member in interface.members:
        for type_ in (member.type, member.parameters, member.reply):
            if type_:
                check(type_, member.name)
    return interface
