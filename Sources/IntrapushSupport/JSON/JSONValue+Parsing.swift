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

private struct JSONValueParser {
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

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, kept as its text.
    private mutating func number() -> JSONValue? {
        let start = index
        _ = consume(UInt8(ascii: "-"))
        if !consume(UInt8(ascii: "0")) {
            guard digits() else { return nil }
        }
        if consume(UInt8(ascii: ".")) {
            guard digits() else { return nil }
        }
        if consume(UInt8(ascii: "e")) || consume(UInt8(ascii: "E")) {
            if !consume(UInt8(ascii: "+")) { _ = consume(UInt8(ascii: "-")) }
            guard digits() else { return nil }
        }
        return .number(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
    }

    private mutating func digits() -> Bool {
        let start = index
        while let byte = peek(), byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { index += 1 }
        return index > start
    }

    /// A string's decoded content; `nil` when it is not a valid string (an unescaped control
    /// character, a bad escape, invalid UTF-8, no closing quote).
    private mutating func string() -> String? {
        guard consume(UInt8(ascii: "\"")) else { return nil }
        let start = index
        var hasEscapes = false
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""):
                let span = JSONStringSpan(range: start..<index, hasEscapes: hasEscapes)
                index += 1
                guard String(validating: UnsafeBufferPointer(rebasing: bytes[span.range]), as: UTF8.self) != nil else { return nil }
                return span.decoded(from: bytes)
            case UInt8(ascii: "\\"):
                hasEscapes = true
                guard escape() else { return nil }
            case 0..<0x20:
                return nil
            default:
                index += 1
            }
        }
        return nil
    }

    private mutating func escape() -> Bool {
        index += 1
        guard let escaped = peek() else { return false }
        index += 1
        switch escaped {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
            UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            return true
        case UInt8(ascii: "u"):
            guard index + 4 <= bytes.count else { return false }
            for offset in 0..<4 where JSONStringSpan.hexValue(bytes[index + offset]) == nil { return false }
            index += 4
            return true
        default:
            return false
        }
    }

    func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func consume(_ byte: UInt8) -> Bool {
        guard peek() == byte else { return false }
        index += 1
        return true
    }

    mutating func consume(literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        let literalBytes = UnsafeBufferPointer(start: literal.utf8Start, count: count)
        for offset in 0..<count where bytes[index + offset] != literalBytes[offset] { return false }
        index += count
        return true
    }

    mutating func skipWhitespace() {
        while let byte = peek(), byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }
}
