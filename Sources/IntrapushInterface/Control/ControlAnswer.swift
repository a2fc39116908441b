/// The answer to one request: `STATUS LENGTH\n`, then LENGTH bytes, STATUS being the exit status
/// the CLI takes (0, or sysexits(3)). The daemon writes it, the CLI reads it.
package struct ControlAnswer: Equatable, Sendable {
    package var status: Int32
    package var body: String

    package init(status: Int32, body: String) {
        self.status = status
        self.body = body
    }

    package static func ok(_ body: String) -> Self { ControlAnswer(status: 0, body: body) }

    package var encoded: [UInt8] {
        var bytes = Array("\(status) \(body.utf8.count)\n".utf8)
        bytes.append(contentsOf: body.utf8)
        return bytes
    }

    /// The answer, once all of it is in `bytes`; `nil` while it is incomplete or unreadable.
    package static func parse(_ bytes: [UInt8]) -> ControlAnswer? {
        guard let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        let words = String(decoding: bytes[..<newline], as: UTF8.self).split(separator: " ")
        guard words.count == 2, let status = Int32(words[0]), let length = Int(words[1]), length >= 0,
            bytes.count - newline - 1 >= length
        else { return nil }
        return ControlAnswer(status: status, body: String(decoding: bytes[(newline + 1)..<(newline + 1 + length)], as: UTF8.self))
    }
}
