#!/usr/bin/env python3
"""Generates the local API's Swift types from its interface files, the one place they are written.

Reads packaging/varlink/*.varlink (the Varlink IDL, varlink.org "Interface Definition") and
writes, for each interface, Sources/IntrapushInterface/LocalAPI/<Name>Interface.swift (for
org.varlink.service, Varlink/VarlinkServiceInterface.swift): its
types as structs and enums, each method as an enum with its Parameters and Reply, its errors as
one `Failure` enum, and `Call`, what the daemon dispatches on; and LocalAPIInterfaces.swift, the
descriptions GetInterfaceDescription returns. Nothing here is edited by hand: change the
.varlink file and run `make generate`. `--check` (in make test) fails when a generated file is
not what the interface files make, and names it.

Usage: varlink_generate.py [--check]
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
IDL_DIR = os.path.join(ROOT, "packaging", "varlink")
OUT_DIR = os.path.join(ROOT, "Sources", "IntrapushInterface", "LocalAPI")
# org.varlink.service is the protocol's own, not the local API's: it goes with the protocol.
PROTOCOL_DIR = os.path.join(ROOT, "Sources", "IntrapushInterface", "Varlink")
GENERATOR = "scripts/varlink_generate.py"

SWIFT_KEYWORDS = {
    "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init", "inout",
    "internal", "let", "open", "operator", "private", "protocol", "public", "rethrows", "static", "struct",
    "subscript", "typealias", "var", "break", "case", "continue", "default", "defer", "do", "else",
    "fallthrough", "for", "guard", "if", "in", "repeat", "return", "switch", "where", "while", "as", "Any",
    "catch", "false", "is", "nil", "super", "self", "Self", "throw", "throws", "true", "try", "package",
}
# Words that Swift's API guidelines write in capitals after the first word of a name.
ACRONYMS = {"id": "ID", "url": "URL", "uid": "UID", "pid": "PID", "ms": "MS"}
SCALARS = {"bool": "Bool", "int": "Int64", "float": "Double", "string": "String", "object": "JSONValue"}


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


def parse(path):
    with open(path, encoding="utf-8") as file:
        text = file.read()
    interface = Parser(text, os.path.relpath(path, ROOT)).interface()
    if os.path.basename(path) != interface.name + ".varlink":
        raise IDLError(f"{path}: the file of interface {interface.name} is named {interface.name}.varlink")
    types = {member.name for member in interface.of("type")}

    def check(type_, where):
        if type_.kind == "named" and type_.name not in types:
            raise IDLError(f"{path}: {where} names the type {type_.name}, which the interface does not declare")
        for field in type_.fields or []:
            check(field.type, f"{where}.{field.name}")
        if type_.element:
            check(type_.element, where)

    for member in interface.members:
        for type_ in (member.type, member.parameters, member.reply):
            if type_:
                check(type_, member.name)
    return interface


# ---- Swift ------------------------------------------------------------------------------------

def camel(name, first_upper=False):
    words = name.split("_")
    out = []
    for index, word in enumerate(words):
        if index == 0 and not first_upper:
            out.append(word[:1].lower() + word[1:])
        else:
            out.append(ACRONYMS.get(word.lower(), word[:1].upper() + word[1:]))
    result = "".join(out)
    return f"`{result}`" if result in SWIFT_KEYWORDS else result


def bare(identifier):
    return identifier.strip("`")


def swift_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


class Emitter:
    def __init__(self, interface):
        self.interface = interface
        self.lines = []
        self.indent = 0

    def line(self, text=""):
        self.lines.append(("    " * self.indent + text) if text else "")

    def doc(self, lines):
        for text in lines:
            self.line("/// " + text if text else "///")

    def swift_type(self, type_, anonymous_name):
        """The Swift spelling of `type_`; an anonymous struct or enum becomes a nested type named
        `anonymous_name`, emitted by the caller."""
        if type_.kind in SCALARS:
            return SCALARS[type_.kind]
        if type_.kind == "named":
            return type_.name
        if type_.kind in ("struct", "enum"):
            return anonymous_name
        element = self.swift_type(type_.element, anonymous_name)
        if type_.kind == "optional":
            return element + "?"
        if type_.kind == "array":
            return f"[{element}]"
        return f"[String: {element}]"

    @staticmethod
    def anonymous(type_):
        while type_.kind in ("optional", "array", "map"):
            type_ = type_.element
        return type_ if type_.kind in ("struct", "enum") else None

    def value_type(self, name, type_, doc):
        """A struct or an enum of the interface: a declared type, parameters, a reply."""
        self.doc(doc)
        if type_.kind == "enum":
            self.line(f"package enum {name}: String, VarlinkValue, CaseIterable {{")
            self.indent += 1
            for value in type_.values:
                case = camel(value)
                self.line(f"case {case}" + (f" = {swift_string(value)}" if bare(case) != value else ""))
            self.line()
            self.line("package init(varlink value: JSONValue, at path: String, strict: Bool) throws(VarlinkDecodingError) {")
            self.line("    guard let text = value.string, let known = Self(rawValue: text) else { throw VarlinkDecodingError(field: path) }")
            self.line("    self = known")
            self.line("}")
            self.line()
            self.line("package var varlinkJSON: JSONValue { .string(rawValue) }")
            self.indent -= 1
            self.line("}")
            return
        self.line(f"package struct {name}: VarlinkStruct {{")
        self.indent += 1
        fields = type_.fields
        for field in fields:
            nested = self.anonymous(field.type)
            if nested:
                self.value_type(camel(field.name, first_upper=True), nested, [])
        for field in fields:
            self.doc(field.doc)
            self.line(f"package var {camel(field.name)}: {self.swift_type(field.type, camel(field.name, first_upper=True))}")
        if fields:
            self.line()
        arguments = ", ".join(
            f"{camel(field.name)}: {self.swift_type(field.type, camel(field.name, first_upper=True))}"
            + (" = nil" if field.type.kind == "optional" else "")
            for field in fields)
        self.line(f"package init({arguments}) {{")
        for field in fields:
            self.line(f"    self.{bare(camel(field.name))} = {camel(field.name)}")
        self.line("}")
        self.line()
        self.line(f"package static let fieldNames: Set<String> = [{', '.join(swift_string(f.name) for f in fields)}]")
        self.line()
        self.line("package init(varlink value: JSONValue, at path: String, strict: Bool) throws(VarlinkDecodingError) {")
        self.indent += 1
        if fields:
            self.line("let fields = try VarlinkFields(value, at: path, known: Self.fieldNames, strict: strict)")
            for field in fields:
                reader = "optional" if field.type.kind == "optional" else "required"
                self.line(f"{bare(camel(field.name))} = try fields.{reader}({swift_string(field.name)})")
        else:
            self.line("_ = try VarlinkFields(value, at: path, known: Self.fieldNames, strict: strict)")
        self.indent -= 1
        self.line("}")
        self.line()
        if fields:
            self.line("package var varlinkJSON: JSONValue {")
            self.line("    .object([")
            for field in fields:
                self.line(f"        {swift_string(field.name)}: {bare(camel(field.name))}.varlinkJSON,")
            self.line("    ])")
            self.line("}")
        else:
            self.line("package var varlinkJSON: JSONValue { .object([:]) }")
        self.indent -= 1
        self.line("}")

    def failure(self, errors):
        interface = self.interface
        self.doc([f"The errors {interface.name} declares."])
        self.line("package enum Failure: VarlinkInterfaceFailure {")
        self.indent += 1
        for error in errors:
            self.doc(error.doc)
            labels = ", ".join(f"{camel(f.name)}: {self.swift_type(f.type, 'JSONValue')}" for f in error.type.fields)
            self.line(f"case {camel(error.name)}" + (f"({labels})" if labels else ""))
        self.line()
        self.line(f"package static let interface = {swift_string(interface.name)}")
        self.line(f"package static let names: Set<String> = [{', '.join(swift_string(interface.name + '.' + e.name) for e in errors)}]")
        self.line()
        self.line("package var varlinkError: VarlinkError {")
        self.indent += 1
        self.line("switch self {")
        for error in errors:
            fields = error.type.fields
            qualified = swift_string(interface.name + "." + error.name)
            if fields:
                bindings = ", ".join(f"let {camel(f.name)}" for f in fields)
                members = ", ".join(f"{swift_string(f.name)}: {camel(f.name)}.varlinkJSON" for f in fields)
                self.line(f"case .{bare(camel(error.name))}({bindings}):")
                self.line(f"    VarlinkError({qualified}, [{members}])")
            else:
                self.line(f"case .{bare(camel(error.name))}:")
                self.line(f"    VarlinkError({qualified})")
        self.line("}")
        self.indent -= 1
        self.line("}")
        self.line()
        self.doc(["One of this interface's errors, read leniently (a newer daemon may add parameters); `nil`",
                  "for another name, or parameters that are not what the interface says."])
        self.line("package init?(_ error: VarlinkError) {")
        self.indent += 1
        self.line("let parameters = JSONValue.object(error.parameters)")
        self.line("do {")
        self.indent += 1
        self.line("switch error.name {")
        for error in errors:
            fields = error.type.fields
            self.line(f"case {swift_string(interface.name + '.' + error.name)}:")
            if fields:
                self.line("    let fields = try VarlinkFields(parameters, at: \"\", known: [], strict: false)")
                readers = ", ".join(
                    f"{camel(f.name)}: try fields.{'optional' if f.type.kind == 'optional' else 'required'}({swift_string(f.name)})"
                    for f in fields)
                self.line(f"    self = .{bare(camel(error.name))}({readers})")
            else:
                self.line(f"    self = .{bare(camel(error.name))}")
        self.line("default: return nil")
        self.line("}")
        self.indent -= 1
        self.line("} catch {")
        self.line("    return nil")
        self.line("}")
        self.indent -= 1
        self.line("}")
        self.indent -= 1
        self.line("}")

    def method(self, method):
        interface = self.interface
        self.doc(method.doc)
        self.line(f"package enum {method.name}: VarlinkMethod {{")
        self.indent += 1
        self.line(f"package static let qualifiedName = {swift_string(interface.name + '.' + method.name)}")
        self.line(f"package typealias Failure = {self.swift_name}.Failure")
        self.line()
        self.value_type("Parameters", method.parameters, [])
        self.line()
        self.value_type("Reply", method.reply, [])
        self.indent -= 1
        self.line("}")

    def call(self, methods):
        interface = self.interface
        self.doc([f"A call of {interface.name}, its parameters read as the interface says."])
        self.line("package enum Call: Sendable {")
        self.indent += 1
        for method in methods:
            self.line(f"case {camel(method.name)}({method.name}.Parameters)")
        self.line()
        self.doc(["The call `method` names (its last component) with `parameters`: `methodNotFound` for a",
                  "method the interface does not declare, `invalidParameter` naming the first parameter that",
                  "is unknown, missing, or of the wrong type."])
        self.line("package static func decode(_ call: VarlinkCall) -> Result<Call, VarlinkServiceInterface.Failure> {")
        self.indent += 1
        self.line("let parameters = JSONValue.object(call.parameters)")
        self.line("do throws(VarlinkDecodingError) {")
        self.indent += 1
        self.line("switch call.member {")
        for method in methods:
            self.line(f"case {swift_string(method.name)}:")
            self.line(f"    return .success(.{bare(camel(method.name))}(try {method.name}.Parameters(varlink: parameters, at: \"\", strict: true)))")
        self.line("default:")
        self.line("    return .failure(.methodNotFound(method: call.method))")
        self.line("}")
        self.indent -= 1
        self.line("} catch {")
        self.line("    return .failure(.invalidParameter(parameter: error.field))")
        self.line("}")
        self.indent -= 1
        self.line("}")
        self.indent -= 1
        self.line("}")

    def emit(self, swift_name):
        interface = self.interface
        self.swift_name = swift_name
        self.line(f"// Generated by {GENERATOR} from packaging/varlink/{interface.name}.varlink: edit that file,")
        self.line("// then run `make generate`.")
        self.line("import IntrapushSupport")
        self.line()
        self.doc([f"`{interface.name}`" + (": " + interface.doc[0] if interface.doc else "")] + interface.doc[1:])
        self.line(f"package enum {swift_name}: VarlinkInterface {{")
        self.indent += 1
        self.line(f"package static let name = {swift_string(interface.name)}")
        self.line()
        for member in interface.of("type"):
            self.value_type(member.name, member.type, member.doc)
            self.line()
        for member in interface.of("method"):
            self.method(member)
            self.line()
        self.call(interface.of("method"))
        self.line()
        self.failure(interface.of("error"))
        self.indent -= 1
        self.line("}")
        return "\n".join(self.lines) + "\n"


def swift_name_of(interface):
    if interface.name == "org.varlink.service":
        return "VarlinkServiceInterface"
    return interface.name.split(".")[-1][:1].upper() + interface.name.split(".")[-1][1:] + "Interface"


def directory_of(interface):
    return PROTOCOL_DIR if interface.name == "org.varlink.service" else OUT_DIR


def registry(interfaces):
    lines = [
        f"// Generated by {GENERATOR} from packaging/varlink/*.varlink: edit those, then run `make generate`.",
        "import IntrapushSupport",
        "",
        "/// The interfaces the daemon answers, as `org.varlink.service.GetInfo` and",
        "/// `GetInterfaceDescription` give them.",
        "package enum LocalAPIInterfaces {",
        '    package static let vendor = "intrapush"',
        '    package static let product = "intrapushd"',
        "    /// The manual page that documents the API.",
        '    package static let url = "man:intrapush(1)"',
        "    /// The upstream version, as the top entry of debian/changelog has it.",
        "    package static let version = ProductVersion.upstream",
        "",
        "    /// Each interface's description, by name: its file, byte for byte.",
        "    package static let descriptions: [String: String] = [",
    ]
    for interface in interfaces:
        lines.append(f"        {swift_name_of(interface)}.name: {swift_name_of(interface)}.description,")
    lines += ["    ]", "", "    /// Every method of every interface (the fuzz harness and the tests go through all of them).",
              "    package static let methods: [any VarlinkMethod.Type] = ["]
    for interface in interfaces:
        for method in interface.of("method"):
            lines.append(f"        {swift_name_of(interface)}.{method.name}.self,")
    lines += ["    ]", "}", ""]
    for interface in interfaces:
        lines.append(f"extension {swift_name_of(interface)} {{")
        lines.append("    package static let description = #\"\"\"")
        for text in interface.text.rstrip("\n").split("\n"):
            lines.append(("        " + text) if text.strip() else "")
        lines.append("        \"\"\"#")
        lines.append("}")
        lines.append("")
    return "\n".join(lines)


def generated_files():
    interfaces = [parse(os.path.join(IDL_DIR, name)) for name in sorted(os.listdir(IDL_DIR)) if name.endswith(".varlink")]
    files = {}
    for interface in interfaces:
        files[os.path.join(directory_of(interface), swift_name_of(interface) + ".swift")] = Emitter(interface).emit(swift_name_of(interface))
    files[os.path.join(OUT_DIR, "LocalAPIInterfaces.swift")] = registry(interfaces)
    return files


def main():
    check = "--check" in sys.argv[1:]
    try:
        files = generated_files()
    except IDLError as error:
        print(f"varlink_generate: {error}", file=sys.stderr)
        return 1
    stale = []
    for path, text in files.items():
        current = open(path, encoding="utf-8").read() if os.path.exists(path) else None
        if current == text:
            continue
        if check:
            stale.append(os.path.relpath(path, ROOT))
        else:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as file:
                file.write(text)
            print(f"wrote {os.path.relpath(path, ROOT)}")
    generated = {os.path.join(d, name) for d in (OUT_DIR, PROTOCOL_DIR) if os.path.isdir(d) for name in os.listdir(d)}
    for path in sorted(generated - set(files)):
        with open(path, encoding="utf-8") as file:
            if not file.readline().startswith(f"// Generated by {GENERATOR}"):
                continue
        if check:
            stale.append(os.path.relpath(path, ROOT) + " (no interface file makes it)")
        else:
            os.remove(path)
            print(f"removed {os.path.relpath(path, ROOT)}")
    if stale:
        print("varlink_generate: not what packaging/varlink/ makes; run `make generate`: " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
