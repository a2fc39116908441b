// SPDX-License-Identifier: Apache-2.0

extension JSONValue {
    /// Containers nested deeper than this make a text invalid: a parser that recurses must not
    /// let a peer choose how deep.
    package static let maximumDepth = 64

    /// The one JSON value in `bytes` (RFC 8259, surrounding white space allowed); `nil` when the
    /// bytes are not exactly one valid value or nest too deep. A key given twice keeps the last.
    package static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> JSONValue? {
        var parser = JSONValueParser(bytes: bytes)
        parser.skipWhitespace()
        guard let value = parser.value(depth: 0) else { return nil }
        parser.skipWhitespace()
        return parser.index == bytes.count ? value : nil
    }

    package static func parse(_ text: String) -> JSONValue? {
        var text = text
        return text.withUTF8 { parse($0) }
    }
}

private struct JSONValueParser: JSONByteReader {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    mutating func value(depth: Int) -> JSONValue? {
        switch peek() ?? 0 {
        case UInt8(ascii: "\""):
            return string().map { .string($0) }
        case UInt8(ascii: "{"):
            return object(depth: depth + 1)
        case UInt8(ascii: "["):
            return array(depth: depth + 1)
        case UInt8(ascii: "t"):
            return consume(literal: "true") ? .bool(true) : nil
        case UInt8(ascii: "f"):
            return consume(literal: "false") ? .bool(false) : nil
        case UInt8(ascii: "n"):
            return consume(literal: "null") ? .null : nil
        default:
            return number()
        }
    }

    private mutating func object(depth: Int) -> JSONValue? {
        guard depth <= JSONValue.maximumDepth else { return nil }
        index += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if consume(UInt8(ascii: "}")) { return .object(members) }
        repeat {
            skipWhitespace()
            guard let key = string() else { return nil }
            skipWhitespace()
            guard consume(UInt8(ascii: ":")) else { return nil }
            skipWhitespace()
            guard let member = value(depth: depth) else { return nil }
            members[key] = member
            skipWhitespace()
        } while consume(UInt8(ascii: ","))
        return consume(UInt8(ascii: "}")) ? .object(members) : nil
    }

    private mutating func array(depth: Int) -> JSONValue? {
        guard depth <= JSONValue.maximumDepth else { return nil }
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if consume(UInt8(ascii: "]")) { return .array(elements) }
        repeat {
            skipWhitespace()
            guard let element = value(depth: depth) else { return nil }
            elements.append(element)
            skipWhitespace()
        } while consume(UInt8(ascii: ","))
        return consume(UInt8(ascii: "]")) ? .array(elements) : nil
    }

    /// A number, kept as its text.
    private mutating func number() -> JSONValue? {
        let start = index
        guard skipNumber() else { return nil }
        return .number(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
    }

    /// A string's decoded content; `nil` when it is not a valid string (an unescaped control
    /// character, a bad escape, no closing quote) or not UTF-8: a local peer's bytes are not
    /// trusted to be text.
    private mutating func string() -> String? {
        guard let span = scanString(),
            String(validating: UnsafeBufferPointer(rebasing: bytes[span.range]), as: UTF8.self) != nil
        else { return nil }
        return span.decoded(from: bytes)
    }
}
