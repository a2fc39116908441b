// SPDX-License-Identifier: Apache-2.0

/// A whole JSON document as a value: what a Varlink message is read into and written from.
///
/// The push path never builds one (it scans with `JSONObjectScanner`); the local API's messages
/// are small and bounded by the socket's limits, and their parameters are looked up by name.
package indirect enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    /// A number as its JSON text, so that no digits are lost before a caller picks a type.
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    package init(_ integer: Int64) { self = .number(String(integer)) }
    package init(_ integer: Int) { self = .number(String(integer)) }
    package init(_ string: String?) { self = string.map { .string($0) } ?? .null }

    /// The member `key` of an object; `nil` for anything else or a missing member.
    package subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members[key]
    }

    /// A number that is a whole 64-bit integer (`12`, not `12.0` or `1e3`).
    package var integer: Int64? {
        guard case .number(let text) = self else { return nil }
        return Int64(text)
    }

    package var string: String? {
        guard case .string(let text) = self else { return nil }
        return text
    }

    package var bool: Bool? {
        guard case .bool(let value) = self else { return nil }
        return value
    }

    package var isNull: Bool { self == .null }

    /// The compact JSON text (no spaces); object members in key order, so that the same value
    /// always gives the same text.
    package var text: String {
        var output = ""
        append(to: &output)
        return output
    }

    package func append(to output: inout String) {
        switch self {
        case .null: output += "null"
        case .bool(let value): output += value ? "true" : "false"
        case .number(let text): output += text
        case .string(let text): JSONText.appendQuoted(text, to: &output)
        case .array(let elements):
            output += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { output += "," }
                element.append(to: &output)
            }
            output += "]"
        case .object(let members):
            output += "{"
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { output += "," }
                JSONText.appendQuoted(key, to: &output)
                output += ":"
                members[key]!.append(to: &output)
            }
            output += "}"
        }
    }
}
