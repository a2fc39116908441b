// SPDX-License-Identifier: Apache-2.0

/// A server's frame: the decoder never traps, a number id is its own text, and what it reads
/// from a JSON object was in the frame.
func fuzzPushDecoder(_ bytes: [UInt8]) {
    let decoder = PushDecoder(idField: "id", replyToField: "re")
    let push = bytes.withUnsafeBytes { decoder.decode(frame: $0, receivedAt: 0) }
    if let text = String(validating: bytes, as: UTF8.self) {
        require(push.payload == .text(text), "a UTF-8 frame is stored as its text")
        if let id = push.messageID, !text.contains("\\") {
            // Its bytes: an id that starts with a combining mark joins the quote before it into
            // one Swift character, so the frame holds it without containing it as characters.
            require(Array(text.utf8).firstRange(of: Array(id.utf8)) != nil, "the id \(id) is in the frame")
        }
    } else {
        require(push.payload == .binary(bytes) && push.messageID == nil, "other bytes are kept as they came")
    }
}

/// The JSON scanner on any bytes; and any text, quoted, scans back to itself.
func fuzzJSONScanner(_ bytes: [UInt8]) {
    let keys = [Array("id".utf8), Array(bytes.prefix(3))]
    _ = bytes.withUnsafeBufferPointer { JSONObjectScanner.scalars(of: keys, in: $0) }
    let original = String(decoding: bytes, as: UTF8.self)
    var object = "{\"k\":" + JSONText.quoted(original) + "}"
    let members = object.withUTF8 { JSONObjectScanner.scalars(of: [Array("k".utf8)], in: $0) }
    guard case .string(let read)? = members?[0] else { return require(false, "a quoted string is read as a string") }
    require(read == original, "a quoted string reads back the same")
}

/// A message for the server as `intrapush send` takes it: prepared or refused, never a trap,
/// and what is prepared is still one JSON object within the size.
func fuzzOutboxMessage(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    guard let message = try? OutboxMessage.prepare(text, idField: "id", maximumSize: 4096) else { return }
    require(message.text.utf8.count <= 4096, "within the size")
    require(!message.id.isEmpty, "an id")
}

/// A push's priority and recipients, as the decoder reads them from any frame: a level is 1–5,
/// and the recipients column holds only names (no empty line, no control character).
func fuzzPushModel(_ bytes: [UInt8]) {
    let decoder = PushDecoder(idField: "id", priorityField: "p", linkField: "l", recipientsField: "to")
    let push = bytes.withUnsafeBytes { decoder.decode(frame: $0, receivedAt: 0) }
    if let priority = push.priority { require((1...5).contains(priority.rawValue), "a level of 1 to 5") }
    if let recipients = push.recipients {
        let names = Recipients.names(in: recipients)
        require(names.count <= Recipients.maximumCount, "at most \(Recipients.maximumCount) names")
        require(names.allSatisfy { !$0.isEmpty && !$0.unicodeScalars.contains { $0.value < 0x20 } }, "only names: \(names)")
        require(Recipients.column(for: names) == recipients, "the column is its names, one per line")
    }
}

/// What the desktop shows for any stored fields: a summary that is never empty and never over
/// its ceiling, no NUL (sd-bus would cut the string there), no markup left unescaped when the
/// server reads it, and a default action only for a web or mail link.
func fuzzNotificationContent(_ bytes: [UInt8]) {
    let parts = String(decoding: bytes, as: UTF8.self).split(separator: "\u{1}", maxSplits: 4, omittingEmptySubsequences: false)
        .map(String.init)
    func part(_ index: Int) -> String? { index < parts.count && !parts[index].isEmpty ? parts[index] : nil }
    let markup = bytes.first.map { $0 & 1 == 1 } ?? false
    let priority = bytes.last.flatMap { NotificationPriority(rawValue: Int($0 % 7)) }
    let shown = NotificationContent.notification(
        title: part(0), body: part(1), payload: part(2) ?? "", priority: priority, link: part(3), markup: markup)
    require(!shown.summary.isEmpty && shown.summary.utf8.count <= 256, "a summary within its ceiling")
    require(!shown.summary.utf8.contains(0) && !shown.body.utf8.contains(0), "no NUL")
    if markup { require(!shown.body.unicodeScalars.contains("<") && !shown.body.unicodeScalars.contains(">"), "markup escaped: \(shown.body)") }
    if shown.actions.contains(DesktopNotification.openAction) {
        let link = part(3)?.lowercased() ?? ""
        require(link.hasPrefix("http://") || link.hasPrefix("https://") || link.hasPrefix("mailto:"), "only web and mail links open")
    }
    require(shown.expireTimeout == (shown.urgency == .critical ? 0 : -1), "critical ones stay")
}

/// A frame template and a value from the bytes (split at the first 0x00): filling never traps; a
/// JSON-shaped template's frame parses as JSON whatever the value holds, and reading the value back
/// from it (one placeholder) gives the value; reading any bytes as a frame never traps.
func fuzzFrameTemplate(_ bytes: [UInt8]) {
    let parts = bytes.split(separator: 0, maxSplits: 1, omittingEmptySubsequences: false)
    let template = FrameTemplate(String(decoding: parts[0], as: UTF8.self), placeholder: "{id}")
    let value = parts.count > 1 ? String(decoding: parts[1], as: UTF8.self) : "x\"\\\n"
    let frame = template.filled(with: .string(value))
    if template.isJSONShaped {
        require(JSONValue.parse(frame) != nil, "a JSON-shaped template's frame is JSON: \(frame.debugDescription)")
        if template.slots.count == 1, !value.isEmpty {
            let read = Array(frame.utf8).withUnsafeBytes { template.value(in: $0) }
            require(read == value, "the value reads back from its frame: \(frame.debugDescription)")
        }
    }
    _ = bytes.withUnsafeBytes { template.value(in: $0, allowsEmpty: true) }
}
