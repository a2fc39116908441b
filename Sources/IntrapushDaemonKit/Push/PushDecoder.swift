import IntrapushSupport
import IntrapushStore
/// Turns a frame into a `Push`: the message id from `idField`, the title, and the body
/// (`body`, else `content`, else `message`) when the payload is a JSON object.
///
/// Members whose value is `null` count as absent. A payload that is not JSON, or not an
/// object, keeps no id, title or body and is stored exactly as it came. Never throws: a bad
/// frame must not stop the daemon.
package struct PushDecoder: Sendable, Equatable {
    package let idField: String
    /// The member naming the request a reply answers (`reply_to_field`).
    package let replyToField: String
    /// `idField`, then the members the title and body come from, in order of preference, then
    /// `replyToField` when it is another member.
    private let wantedKeys: [[UInt8]]
    /// Where in `wantedKeys` the reply-to member is: its own slot, or the id's when they are one.
    private let replyToIndex: Int

    package init(idField: String = "id", replyToField: String? = nil) {
        self.idField = idField
        self.replyToField = replyToField ?? idField
        var keys = [Array(idField.utf8), Array("title".utf8), Array("body".utf8), Array("content".utf8), Array("message".utf8)]
        if self.replyToField != idField { keys.append(Array(self.replyToField.utf8)) }
        self.replyToIndex = self.replyToField == idField ? 0 : keys.count - 1
        self.wantedKeys = keys
    }

    package func decode(text: String, receivedAt: Int64) -> Push {
        var push = Push(payload: .text(text), messageID: nil, title: nil, body: nil, receivedAt: receivedAt)
        var text = text
        text.withUTF8 { fillFields(of: &push, from: $0) }
        return push
    }

    /// Binary frames are pushes too: text when valid UTF-8, else kept as bytes.
    package func decode(binary bytes: [UInt8], receivedAt: Int64) -> Push {
        bytes.withUnsafeBytes { decode(frame: $0, receivedAt: receivedAt) }
    }

    /// A frame's payload as it lies in the receive buffer: copied once, into the push.
    package func decode(frame bytes: UnsafeRawBufferPointer, receivedAt: Int64) -> Push {
        let utf8 = bytes.assumingMemoryBound(to: UInt8.self)
        guard let text = String(validating: utf8, as: UTF8.self) else {
            return Push(payload: .binary(Array(utf8)), messageID: nil, title: nil, body: nil, receivedAt: receivedAt)
        }
        var push = Push(payload: .text(text), messageID: nil, title: nil, body: nil, receivedAt: receivedAt)
        fillFields(of: &push, from: utf8)
        return push
    }

    private func fillFields(of push: inout Push, from utf8: UnsafeBufferPointer<UInt8>) {
        // Only something that starts like an object can be one; plain text is not scanned.
        guard let first = utf8.first(where: { !Self.isJSONWhitespace($0) }), first == UInt8(ascii: "{"),
            let members = JSONObjectScanner.scalars(of: wantedKeys, in: utf8)
        else { return }
        push.messageID = members[0].flatMap(Self.identifier)
        push.title = members[1].flatMap(Self.text)
        push.body = members[2].flatMap(Self.text) ?? members[3].flatMap(Self.text) ?? members[4].flatMap(Self.text)
        push.inReplyTo = members[replyToIndex].flatMap(Self.text)
    }

    /// A string or number member as a message id; a number is its exact JSON text. Read
    /// through a `Double`, two ids beyond 2^53 that differ would become one, and the second push
    /// would be taken for a duplicate and never stored.
    private static func identifier(_ scalar: JSONObjectScanner.Scalar) -> String? {
        switch scalar {
        case .string(let value):
            return value
        case .number(let text):
            return text
        case .other:
            return nil
        }
    }

    private static func text(_ scalar: JSONObjectScanner.Scalar) -> String? {
        if case .string(let value) = scalar { return value }
        return nil
    }

    private static func isJSONWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}
