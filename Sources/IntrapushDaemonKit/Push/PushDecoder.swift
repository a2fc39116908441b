// SPDX-License-Identifier: Apache-2.0

import IntrapushSupport
import IntrapushStore
/// Turns a frame into a `Push`: the message id from `idField`, the title, the body (`body`, else
/// `content`, else `message`), the priority, the link (`linkField`, else `url`) and the recipients
/// when the payload is a JSON object.
///
/// Members whose value is `null` count as absent. A payload that is not JSON, or not an
/// object, keeps none of them and is stored exactly as it came. Never throws: a bad
/// frame must not stop the daemon.
struct PushDecoder: Sendable, Equatable {
    let idField: String
    /// The member naming the request a reply answers (`reply_to_field`).
    let replyToField: String
    let priorityField: String
    let linkField: String
    let recipientsField: String
    /// Every member looked for, each once (two settings may name the same member).
    private let wantedKeys: [[UInt8]]
    /// Where in `wantedKeys` each setting's member is.
    private let slots: Slots

    private struct Slots: Sendable, Equatable {
        var id = 0, title = 0, body = 0, content = 0, message = 0
        var priority = 0, link = 0, url = 0, recipients = 0, replyTo = 0
    }

    init(
        idField: String = "id", replyToField: String? = nil, priorityField: String = "priority",
        linkField: String = "click", recipientsField: String = "to"
    ) {
        self.idField = idField
        self.replyToField = replyToField ?? idField
        self.priorityField = priorityField
        self.linkField = linkField
        self.recipientsField = recipientsField
        var keys: [String] = []
        func slot(_ name: String) -> Int {
            if let index = keys.firstIndex(of: name) { return index }
            keys.append(name)
            return keys.count - 1
        }
        var slots = Slots()
        slots.id = slot(idField)
        slots.title = slot("title")
        slots.body = slot("body")
        slots.content = slot("content")
        slots.message = slot("message")
        slots.priority = slot(priorityField)
        slots.link = slot(linkField)
        slots.url = slot("url")
        slots.recipients = slot(recipientsField)
        slots.replyTo = slot(self.replyToField)
        self.slots = slots
        self.wantedKeys = keys.map { Array($0.utf8) }
    }

    func decode(text: String, receivedAt: Int64) -> Push {
        var push = Push(payload: .text(text), messageID: nil, title: nil, body: nil, receivedAt: receivedAt)
        var text = text
        text.withUTF8 { fillFields(of: &push, from: $0) }
        return push
    }

    /// Binary frames are pushes too: text when valid UTF-8, else kept as bytes.
    func decode(binary bytes: [UInt8], receivedAt: Int64) -> Push {
        bytes.withUnsafeBytes { decode(frame: $0, receivedAt: receivedAt) }
    }

    /// A frame's payload as it lies in the receive buffer: copied once, into the push.
    func decode(frame bytes: UnsafeRawBufferPointer, receivedAt: Int64) -> Push {
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
        push.messageID = members[slots.id].flatMap(Self.identifier)
        if case .number? = members[slots.id] { push.messageIDIsNumber = true }
        push.title = members[slots.title].flatMap(Self.text)
        push.body = members[slots.body].flatMap(Self.text) ?? members[slots.content].flatMap(Self.text)
            ?? members[slots.message].flatMap(Self.text)
        push.inReplyTo = members[slots.replyTo].flatMap(Self.text)
        push.priority = members[slots.priority].flatMap(Self.priority)
        push.link = members[slots.link].flatMap(Self.text) ?? members[slots.url].flatMap(Self.text)
        push.recipients = members[slots.recipients].flatMap(Self.recipients)
    }

    private static func priority(_ scalar: JSONObjectScanner.Scalar) -> NotificationPriority? {
        switch scalar {
        case .string(let text), .number(let text): NotificationPriority(member: text)
        case .strings, .null, .other: nil
        }
    }

    /// A name or a list of names; any other value (`null` aside) is addressed to no one we know,
    /// never to everyone.
    private static func recipients(_ scalar: JSONObjectScanner.Scalar) -> String? {
        switch scalar {
        case .string(let name): Recipients.column(for: [name])
        case .strings(let names): Recipients.column(for: names)
        case .null: nil
        case .number, .other: ""
        }
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
        case .strings, .null, .other:
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
