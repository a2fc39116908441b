// SPDX-License-Identifier: Apache-2.0

import IntrapushSupport

/// A value of a Varlink type (varlink.org, "Interface Definition"), read from and written as JSON.
/// The generated interfaces (`LocalAPI/`) are made of these; nothing reads a parameter by name
/// and guesses its type.
package protocol VarlinkValue: Sendable, Equatable {
    /// Reads `value`; `path` names it in an error (`filter.since`). With `strict`, an object
    /// with a member its type does not declare is refused, as a service refuses an unknown
    /// parameter; a client reading replies is lenient, so that a newer daemon may add fields.
    init(varlink value: JSONValue, at path: String, strict: Bool) throws(VarlinkDecodingError)
    var varlinkJSON: JSONValue { get }
}

/// A struct of an interface: a type, a method's parameters or its reply.
package protocol VarlinkStruct: VarlinkValue {
    static var fieldNames: Set<String> { get }
}

/// Where a value is not what its interface says: the field's path, as
/// `org.varlink.service.InvalidParameter` names it.
package struct VarlinkDecodingError: Error, Equatable, Sendable {
    package var field: String

    package init(field: String) {
        self.field = field
    }
}

extension Int64: VarlinkValue {
    /// A JSON number that is a whole 64-bit integer: `12`, never `12.5`, `1e3` or a rounded `2^64`.
    package init(varlink value: JSONValue, at path: String, strict: Bool) throws(VarlinkDecodingError) {
        guard let integer = value.integer else { throw VarlinkDecodingError(field: path) }
        self = integer
    }

    package var varlinkJSON: JSONValue { JSONValue(self) }
}

extension Double: VarlinkValue {
    package init(varlink value: JSONValue, at path: String, strict: Bool) throws(VarlinkDecodingError) {
        guard case .number(let text) = value, let number = Double(text), number.isFinite else { throw VarlinkDecodingError(field: path) }
        self = number
    }

    package var varlinkJSON: JSONValue { .number(isFinite ? "\(self)" : "0") }
}

extension Bool: VarlinkValue {
    package init(varlink value: JSONValue, at path: String, strict: Bool) throws(VarlinkDecodingError) {
        guard let flag = value.bool else { throw VarlinkDecodingError(field: path) }
        self = flag
    }

    package var varlinkJSON: JSONValue { .bool(self) }
}

extension String: VarlinkValue {
    package init(varlink value: JSONValue, at path: String, strict: Bool) throws(VarlinkDecodingError) {
        guard let text = value.string else { throw VarlinkDecodingError(field: path) }
        self = text
    }

    package var varlinkJSON: JSONValue { .string(self) }
}

/// Varlink's `object`: any JSON object, kept as it came.
extension JSONValue: VarlinkValue {
    package init(varlink value: JSONValue, at path: String, strict: Bool) throws(VarlinkDecodingError) {
        guard case .object = value else { throw VarlinkDecodingError(field: path) }
        self = value
    }

    package var varlinkJSON: JSONValue { self }
}

/// `?T`: absent or null is nil.
extension Optional: VarlinkValue where Wrapped: VarlinkValue {
    package init(varlink value: JSONValue, at path: String, strict: Bool) throws(VarlinkDecodingError) {
        self = value.isNull ? nil : try Wrapped(varlink: value, at: path, strict: strict)
    }

    package var varlinkJSON: JSONValue { map(\.varlinkJSON) ?? .null }
}

/// `[]T`.
extension Array: VarlinkValue where Element: VarlinkValue {
    package init(varlink value: JSONValue, at path: String, strict: Bool) throws(VarlinkDecodingError) {
        guard case .array(let elements) = value else { throw VarlinkDecodingError(field: path) }
        var decoded: [Element] = []
        decoded.reserveCapacity(elements.count)
        for element in elements { decoded.append(try Element(varlink: element, at: path, strict: strict)) }
        self = decoded
    }

    package var varlinkJSON: JSONValue { .array(map(\.varlinkJSON)) }
}

/// `[string]T`.
extension Dictionary: VarlinkValue where Key == String, Value: VarlinkValue {
    package init(varlink value: JSONValue, at path: String, strict: Bool) throws(VarlinkDecodingError) {
        guard case .object(let members) = value else { throw VarlinkDecodingError(field: path) }
        var decoded: [String: Value] = [:]
        for (key, member) in members { decoded[key] = try Value(varlink: member, at: path.isEmpty ? key : "\(path).\(key)", strict: strict) }
        self = decoded
    }

    package var varlinkJSON: JSONValue { .object(mapValues(\.varlinkJSON)) }
}

/// The members of a struct as they are read: each by its declared type, the path of the first
/// that is not what it should be in the error.
package struct VarlinkFields {
    let members: [String: JSONValue]
    let path: String
    let strict: Bool

    /// `value` must be an object; with `strict`, of `known` members only (the first unknown one,
    /// in name order, is named).
    package init(_ value: JSONValue, at path: String, known: Set<String>, strict: Bool) throws(VarlinkDecodingError) {
        guard case .object(let members) = value else { throw VarlinkDecodingError(field: path.isEmpty ? "parameters" : path) }
        if strict, let unknown = members.keys.filter({ !known.contains($0) }).min() {
            throw VarlinkDecodingError(field: Self.path(path, unknown))
        }
        self.members = members
        self.path = path
        self.strict = strict
    }

    package func required<Value: VarlinkValue>(_ name: String) throws(VarlinkDecodingError) -> Value {
        guard let member = members[name], !member.isNull else { throw VarlinkDecodingError(field: Self.path(path, name)) }
        return try Value(varlink: member, at: Self.path(path, name), strict: strict)
    }

    package func optional<Value: VarlinkValue>(_ name: String) throws(VarlinkDecodingError) -> Value? {
        guard let member = members[name], !member.isNull else { return nil }
        return try Value(varlink: member, at: Self.path(path, name), strict: strict)
    }

    static func path(_ parent: String, _ name: String) -> String {
        parent.isEmpty ? name : "\(parent).\(name)"
    }
}
