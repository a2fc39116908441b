/// A server's frame: the decoder never traps, a number id is its own text, and what it reads
/// from a JSON object was in the frame.
func fuzzPushDecoder(_ bytes: [UInt8]) {
    let decoder = PushDecoder(idField: "id", replyToField: "re")
    let push = bytes.withUnsafeBytes { decoder.decode(frame: $0, receivedAt: 0) }
    if let text = String(validating: bytes, as: UTF8.self) {
        require(push.payload == .text(text), "a UTF-8 frame is stored as its text")
        if let id = push.messageID, !text.contains("\\") {
            require(text.contains(id), "the id \(id) is in the frame")
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
