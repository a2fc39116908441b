# SPDX-License-Identifier: Apache-2.0
"""Swift for one Varlink interface (scripts/varlink_generate.py): its types as structs and enums,
each method as an enum with its Parameters and Reply, its errors as one `Failure` enum, and
`Call`, what the daemon dispatches on.

Names the IDL allows and Swift reads otherwise are written so that they keep their meaning: a field
named with a keyword is escaped (`default`, `self`: never `self.self`); a declared type that a
nested one would hide (an anonymous struct named like it, a declared `Reply` inside a method) is
named with its interface; an anonymous struct or enum in an error's parameters is a type of
`Failure`'s own. What cannot be written at all (a type named `String`, two fields that would both
be `limit`) is an IDLError.
"""
from varlink_idl import IDLError, SCALARS

SWIFT_KEYWORDS = {
    "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init", "inout",
    "internal", "let", "open", "operator", "private", "protocol", "public", "rethrows", "static", "struct",
    "subscript", "typealias", "var", "break", "case", "continue", "default", "defer", "do", "else",
    "fallthrough", "for", "guard", "if", "in", "repeat", "return", "switch", "where", "while", "as", "Any",
    "catch", "false", "is", "nil", "super", "self", "Self", "throw", "throws", "true", "try", "package",
}
# Keywords that keep their backticks after a dot as well: `.init` is an initializer, `.self` the
# value itself, `.Type` and `.Protocol` metatypes.
AFTER_DOT_KEYWORDS = {"init", "self", "Type", "Protocol"}
# Words that Swift's API guidelines write in capitals after the first word of a name.
ACRONYMS = {"id": "ID", "url": "URL", "uid": "UID", "pid": "PID", "ms": "MS"}
SWIFT_SCALARS = {"bool": "Bool", "int": "Int64", "float": "Double", "string": "String", "object": "JSONValue"}
assert set(SWIFT_SCALARS) == set(SCALARS)
# Declared names the generated code would read as something else: the Swift types it names, and
# the interface's own `Call` and `Failure`.
RESERVED_TYPE_NAMES = {"Bool", "Int64", "Double", "String", "JSONValue", "Set", "Result", "Sendable", "Error",
                       "Never", "Optional", "Array", "Dictionary", "Call", "Failure", "Self", "Any", "Type",
                       "Protocol"}


def camel(name, first_upper=False):
    """The Swift identifier of an IDL name (`last_push_at` → `lastPushAt`), escaped when a keyword."""
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


def member(identifier):
    """`identifier` after a dot: without backticks, but for the few a dot does not free."""
    return identifier if bare(identifier) in AFTER_DOT_KEYWORDS else bare(identifier)


def local(identifier):
    """A name for a parameter or a binding: `self` cannot be one, it would hide the value itself."""
    return "selfValue" if bare(identifier) == "self" else identifier


def swift_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


# The line in a method's comment that declares it idempotent: a client may send it again when
# the daemon closed the connection before answering (a restart), because it only reads, or does
# nothing the second time.
REPEAT_MARKER = "Safe to repeat"


def may_repeat(method):
    return any(line.strip().startswith(REPEAT_MARKER) for line in method.doc)


def check_distinct(names, what):
    """Two IDL names that Swift would write the same (`Type` and `type`) cannot both be members."""
    seen = {}
    for name in names:
        swift = bare(camel(name))
        if swift in seen:
            raise IDLError(f"{what}: {seen[swift]} and {name} would both be `{swift}` in Swift; rename one")
        seen[swift] = name


class Emitter:
    def __init__(self, interface, source):
        self.interface = interface
        self.source = source
        self.lines = []
        self.indent = 0
        self.declared = {member.name for member in interface.of("type")}
        # Type names declared by the scopes being written, inside the interface's enum: a
        # declared type of the same name must be named with its interface there.
        self.hiding = [set()]

    def line(self, text=""):
        self.lines.append(("    " * self.indent + text) if text else "")

    def doc(self, lines):
        for text in lines:
            self.line("/// " + text if text else "///")

    def swift_type(self, type_, anonymous_name):
        """The Swift spelling of `type_`; an anonymous struct or enum becomes a nested type named
        `anonymous_name`, emitted by the caller."""
        if type_.kind in SWIFT_SCALARS:
            return SWIFT_SCALARS[type_.kind]
        if type_.kind == "named":
            hidden = any(type_.name in names for names in self.hiding)
            return f"{self.swift_name}.{type_.name}" if hidden else type_.name
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
        """A struct or an enum of the interface: a declared type, parameters, a reply, or an
        anonymous one nested in them."""
        self.doc(doc)
        if type_.kind == "enum":
            self.enum(name, type_)
            return
        fields = type_.fields
        check_distinct([field.name for field in fields], f"{self.interface.name}: {name}")
        nested = {camel(field.name, first_upper=True): field for field in fields if self.anonymous(field.type)}
        for nested_name, field in nested.items():
            if nested_name != bare(nested_name) or nested_name in RESERVED_TYPE_NAMES or nested_name.startswith("Varlink"):
                raise IDLError(f"{self.source}: the field {field.name} of {name} is of an anonymous type, which would "
                               f"be named {bare(nested_name)} and stand for another type in the Swift that is "
                               f"generated; declare its type by name, or rename the field")
        # Inside this struct its nested types hide the declared ones of the same name.
        self.hiding.append(set(nested))
        self.line(f"package struct {name}: VarlinkStruct {{")
        self.indent += 1
        for nested_name, field in nested.items():
            self.value_type(nested_name, self.anonymous(field.type), [])
        for field in fields:
            self.doc(field.doc)
            self.line(f"package var {camel(field.name)}: {self.swift_type(field.type, camel(field.name, first_upper=True))}")
        if fields:
            self.line()
        arguments = ", ".join(
            (f"{camel(field.name)} {local(camel(field.name))}" if local(camel(field.name)) != camel(field.name)
             else camel(field.name))
            + f": {self.swift_type(field.type, camel(field.name, first_upper=True))}"
            + (" = nil" if field.type.kind == "optional" else "")
            for field in fields)
        self.line(f"package init({arguments}) {{")
        for field in fields:
            self.line(f"    self.{member(camel(field.name))} = {local(camel(field.name))}")
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
                self.line(f"{self.stored(field.name)} = try fields.{reader}({swift_string(field.name)})")
        else:
            self.line("_ = try VarlinkFields(value, at: path, known: Self.fieldNames, strict: strict)")
        self.indent -= 1
        self.line("}")
        self.line()
        if fields:
            self.line("package var varlinkJSON: JSONValue {")
            self.line("    .object([")
            for field in fields:
                self.line(f"        {swift_string(field.name)}: {self.stored(field.name)}.varlinkJSON,")
            self.line("    ])")
            self.line("}")
        else:
            self.line("package var varlinkJSON: JSONValue { .object([:]) }")
        self.indent -= 1
        self.line("}")
        self.hiding.pop()

    @staticmethod
    def stored(name):
        """A stored property inside its own type: a keyword needs `self.` to be read as one, and so
        does a name of `init(varlink:at:strict:)`'s own parameters and locals."""
        identifier = camel(name)
        if identifier != bare(identifier) or identifier in ("value", "path", "strict", "fields"):
            return f"self.{member(identifier)}"
        return identifier

    def enum(self, name, type_):
        check_distinct(type_.values, f"{self.interface.name}: {name}")
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

    def failure(self, errors):
        interface = self.interface
        check_distinct([error.name for error in errors], f"{interface.name}: its errors")
        # An anonymous struct or enum among an error's parameters: a type of Failure's own,
        # named by the error and the parameter (`RefusedReason`).
        nested = {}
        for error in errors:
            check_distinct([f.name for f in error.type.fields], f"{interface.name}: {error.name}")
            for field in error.type.fields:
                if self.anonymous(field.type):
                    nested[(error.name, field.name)] = error.name + camel(field.name, first_upper=True).strip("`")
        self.doc([f"The errors {interface.name} declares."])
        self.line("package enum Failure: VarlinkInterfaceFailure {")
        self.indent += 1
        self.hiding.append(set(nested.values()))
        for (error_name, field_name), nested_name in nested.items():
            error = next(e for e in errors if e.name == error_name)
            field = next(f for f in error.type.fields if f.name == field_name)
            self.value_type(nested_name, self.anonymous(field.type), [])
            self.line()

        def type_of(error, field):
            return self.swift_type(field.type, nested.get((error.name, field.name)))

        for error in errors:
            self.doc(error.doc)
            labels = ", ".join(f"{camel(f.name)}: {type_of(error, f)}" for f in error.type.fields)
            self.line(f"case {camel(error.name)}" + (f"({labels})" if labels else ""))
        self.hiding.pop()
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
                bindings = ", ".join(f"let {local(camel(f.name))}" for f in fields)
                members = ", ".join(f"{swift_string(f.name)}: {local(camel(f.name))}.varlinkJSON" for f in fields)
                self.line(f"case .{member(camel(error.name))}({bindings}):")
                self.line(f"    VarlinkError({qualified}, [{members}])")
            else:
                self.line(f"case .{member(camel(error.name))}:")
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
                    f"{bare(camel(f.name))}: try fields.{'optional' if f.type.kind == 'optional' else 'required'}({swift_string(f.name)})"
                    for f in fields)
                self.line(f"    self = .{member(camel(error.name))}({readers})")
            else:
                self.line(f"    self = .{member(camel(error.name))}")
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
        self.hiding.append({"Parameters", "Reply"})
        self.line(f"package static let qualifiedName = {swift_string(interface.name + '.' + method.name)}")
        self.line(f"package typealias Failure = {self.swift_name}.Failure")
        # Retrying is opt-in: only a method whose comment says so is sent again after a restart
        # lost its answer (a new write method is not, until someone has thought it through).
        self.line(f"package static let mayRepeat = {'true' if may_repeat(method) else 'false'}")
        self.line()
        self.value_type("Parameters", method.parameters, [])
        self.line()
        self.value_type("Reply", method.reply, [])
        self.hiding.pop()
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
            self.line(f"    return .success(.{member(camel(method.name))}(try {method.name}.Parameters(varlink: parameters, at: \"\", strict: true)))")
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

    def emit(self, swift_name, generator, imports=("IntrapushSupport",)):
        interface = self.interface
        self.swift_name = swift_name
        # Types and methods are Swift types of their own names.
        for named in interface.of("type") + interface.of("method"):
            if named.name in RESERVED_TYPE_NAMES or named.name.startswith("Varlink") or named.name == swift_name:
                raise IDLError(f"{self.source}: the {named.keyword} {named.name} would stand for another type in "
                               f"the Swift that is generated; rename it")
        check_distinct([m.name for m in interface.of("method")], f"{interface.name}: its methods")
        self.line("// SPDX-License-Identifier: Apache-2.0")
        self.line(f"// Generated by {generator} from {self.source}: edit that file,")
        self.line("// then run `make generate`.")
        for module in imports:
            self.line(f"import {module}")
        self.line()
        self.doc([f"`{interface.name}`" + (": " + interface.doc[0] if interface.doc else "")] + interface.doc[1:])
        self.line(f"package enum {swift_name}: VarlinkInterface {{")
        self.indent += 1
        self.line(f"package static let name = {swift_string(interface.name)}")
        self.line()
        for declared in interface.of("type"):
            self.value_type(declared.name, declared.type, declared.doc)
            self.line()
        for method in interface.of("method"):
            self.method(method)
            self.line()
        self.call(interface.of("method"))
        self.line()
        self.failure(interface.of("error"))
        self.indent -= 1
        self.line("}")
        return "\n".join(self.lines) + "\n"
