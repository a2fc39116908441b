#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Turns a frame into a `Push`: the message id from `idField`, the title, and the body
/// (`body`, else `content`, else `message`) when the payload is a JSON object.
///
/// Members whose value is `null` count as absent. A payload that is not JSON, or not an
/// object, keeps no id, title or body and is stored exactly as it came. Never throws: a bad
/// frame must not stop the daemon.
public struct PushDecoder: Sendable, Equatable {
    public var idField: String

    public init(idField: String = "id") {
        self.idField = idField
    }

    public func decode(text: String, receivedAt: Int64) -> Push {
        var push = Push(payload: .text(text), messageID: nil, title: nil, body: nil, receivedAt: receivedAt)
        fillFields(of: &push, from: text.utf8)
        return push
    }

    /// Binary frames are pushes too: text when valid UTF-8, else kept as bytes.
    public func decode(binary bytes: [UInt8], receivedAt: Int64) -> Push {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            return Push(payload: .binary(bytes), messageID: nil, title: nil, body: nil, receivedAt: receivedAt)
        }
        // The bytes are already at hand: no second copy of the payload for the JSON scan.
        var push = Push(payload: .text(text), messageID: nil, title: nil, body: nil, receivedAt: receivedAt)
        fillFields(of: &push, from: bytes)
        return push
    }

    private func fillFields(of push: inout Push, from utf8: some Collection<UInt8>) {
        // Only something that starts like an object can be one; skips the decoder for plain text.
        guard let first = utf8.first(where: { !Self.isJSONWhitespace($0) }), first == UInt8(ascii: "{") else {
            return
        }
        guard let members = try? JSONDecoder().decode([String: JSONMember].self, from: Data(utf8)) else {
            return
        }
        push.messageID = members[idField]?.identifier
        push.title = members["title"]?.text
        push.body = members["body"]?.text ?? members["content"]?.text ?? members["message"]?.text
    }

    private static func isJSONWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}

/// One top-level member of a JSON object, reduced to what the store needs.
private enum JSONMember: Decodable {
    case string(String)
    case integer(Int64)
    case unsignedInteger(UInt64)
    case number(Double)
    /// `null`, booleans, arrays and objects: nothing we take.
    case other

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .other
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let integer = try? container.decode(Int64.self) {
            self = .integer(integer)
        } else if let integer = try? container.decode(UInt64.self) {
            self = .unsignedInteger(integer)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else {
            self = .other
        }
    }

    /// A string or number member as a message id.
    var identifier: String? {
        switch self {
        case .string(let value): return value
        case .integer(let value): return String(value)
        case .unsignedInteger(let value): return String(value)
        case .number(let value): return String(value)
        case .other: return nil
        }
    }

    var text: String? {
        if case .string(let value) = self { return value }
        return nil
    }
}
