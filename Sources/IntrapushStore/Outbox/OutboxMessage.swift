// SPDX-License-Identifier: Apache-2.0

import CLinux
import IntrapushSupport

/// A message for the server, checked and given its id: what `intrapush send` queues.
///
/// The text must be one JSON object. Its id is the string member `idField` when the caller gave
/// one; otherwise a new UUID is added as that member, at the front, and the rest of the text is
/// kept byte for byte (the server sees what the caller wrote).
package struct OutboxMessage: Sendable, Equatable {
    package var id: String
    /// The frame's text, with the id member when one was added.
    package var text: String

    package init(id: String, text: String) {
        self.id = id
        self.text = text
    }

    /// Checks `text` and finds or adds its id.
    ///
    /// - Parameter maximumSize: the largest frame, in bytes, the daemon sends (its own
    ///   `max_message_size`); measured after the id is added.
    package static func prepare(
        _ text: String, idField: String, maximumSize: Int, makeID: () -> String = OutboxMessage.newID
    ) throws(OutboxRefusal) -> OutboxMessage {
        var text = text
        let scanned: [JSONObjectScanner.Scalar?]?? = text.withUTF8 { utf8 in
            guard utf8.first(where: { !isJSONWhitespace($0) }) == UInt8(ascii: "{") else { return .some(nil) }
            return .some(JSONObjectScanner.scalars(of: [Array(idField.utf8)], in: utf8))
        }
        guard let members = scanned ?? nil else { throw .notAnObject }
        var message: OutboxMessage
        switch members[0] {
        case .string(let id)?:
            guard !id.isEmpty else { throw .emptyID(field: idField) }
            message = OutboxMessage(id: id, text: text)
        case .number?, .strings?, .null?, .other?:
            throw .idNotAString(field: idField)
        case nil:
            let id = makeID()
            message = OutboxMessage(id: id, text: withMember(idField, value: id, prependedTo: text))
        }
        guard message.text.utf8.count <= maximumSize else {
            throw .tooLarge(size: message.text.utf8.count, maximum: maximumSize)
        }
        return message
    }

    /// A random (version 4) UUID in lower case, from getrandom(2).
    package static func newID() -> String {
        var bytes = [UInt8](repeating: 0, count: 16)
        let filled = bytes.withUnsafeMutableBytes { getrandom($0.baseAddress, $0.count, 0) }
        precondition(filled == 16, "getrandom failed")
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if [4, 6, 8, 10].contains(index) { text.append(UInt8(ascii: "-")) }
            text.append(hex[Int(byte >> 4)])
            text.append(hex[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// `{"field":"value",` + the rest of the object (or `{"field":"value"}` for `{}`).
    static func withMember(_ field: String, value: String, prependedTo object: String) -> String {
        let utf8 = Array(object.utf8)
        guard let brace = utf8.firstIndex(of: UInt8(ascii: "{")) else { return object }
        let rest = utf8[(brace + 1)...]
        let isEmpty = rest.allSatisfy { isJSONWhitespace($0) || $0 == UInt8(ascii: "}") }
        var result = String(decoding: utf8[...brace], as: UTF8.self)
        result += JSONText.quoted(field) + ":" + JSONText.quoted(value)
        if !isEmpty { result += "," }
        result += String(decoding: isEmpty ? ArraySlice(Array("}".utf8)) : rest, as: UTF8.self)
        return result
    }

    private static func isJSONWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}

/// Why a message was not queued; each maps to the CLI's exit status.
package enum OutboxRefusal: Error, Sendable, Equatable {
    case notAnObject
    case idNotAString(field: String)
    case emptyID(field: String)
    case tooLarge(size: Int, maximum: Int)
    /// A message with this id still waits for delivery (or a request for its reply).
    case duplicate(id: String)

    /// sysexits(3): 65 for data the caller must change, 75 for "try again later".
    package var exitStatus: Int32 { Self.exitStatus(reason: reason) }

    /// The refusal's one word, as the local API's `Refused` error names it.
    package var reason: String {
        switch self {
        case .notAnObject: "not-an-object"
        case .idNotAString: "id-not-a-string"
        case .emptyID: "empty-id"
        case .tooLarge: "too-large"
        case .duplicate: "duplicate"
        }
    }

    /// 75 for a duplicate (later it may go), 65 for anything else about the message.
    package static func exitStatus(reason: String) -> Int32 {
        reason == "duplicate" ? 75 : 65
    }

    package var message: String {
        switch self {
        case .notAnObject:
            "the message is not a JSON object; give one object, like {\"text\":\"hello\"}"
        case .idNotAString(let field):
            "the message's \"\(field)\" member is its id and must be a string"
        case .emptyID(let field):
            "the message's \"\(field)\" member is its id and must not be empty"
        case .tooLarge(let size, let maximum):
            "the message is \(size) bytes, more than max_message_size (\(maximum) bytes); nothing was queued"
        case .duplicate(let id):
            "a message with id \(id) is still waiting to be delivered; nothing was queued (retry later, or use another id)"
        }
    }
}
