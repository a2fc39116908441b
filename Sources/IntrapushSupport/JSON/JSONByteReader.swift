// SPDX-License-Identifier: Apache-2.0

/// The byte-level grammar of JSON (RFC 8259) that both readers share: `JSONObjectScanner` on
/// the push path, which materialises only what it is asked for, and `JSONValue`'s parser for the
/// local API's messages.
protocol JSONByteReader {
    var bytes: UnsafeBufferPointer<UInt8> { get }
    var index: Int { get set }
}

extension JSONByteReader {
    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    mutating func skipNumber() -> Bool {
        _ = consume(UInt8(ascii: "-"))
        if consume(UInt8(ascii: "0")) {
            // no further integer digits after a leading zero
        } else {
            guard skipDigits() else { return false }
        }
        if consume(UInt8(ascii: ".")) {
            guard skipDigits() else { return false }
        }
        if consume(UInt8(ascii: "e")) || consume(UInt8(ascii: "E")) {
            if !consume(UInt8(ascii: "+")) { _ = consume(UInt8(ascii: "-")) }
            guard skipDigits() else { return false }
        }
        return true
    }

    /// One or more decimal digits.
    mutating func skipDigits() -> Bool {
        let start = index
        while let byte = peek(), byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { index += 1 }
        return index > start
    }

    /// Validates a string and returns where its content lies; `nil` when invalid.
    mutating func scanString() -> JSONStringSpan? {
        guard consume(UInt8(ascii: "\"")) else { return nil }
        let start = index
        var hasEscapes = false
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return JSONStringSpan(range: start..<(index - 1), hasEscapes: hasEscapes)
            case UInt8(ascii: "\\"):
                hasEscapes = true
                guard skipEscape() else { return nil }
            case 0..<0x20:
                return nil  // control characters must be escaped
            default:
                index += 1
            }
        }
        return nil
    }

    mutating func skipEscape() -> Bool {
        index += 1
        guard let escaped = peek() else { return false }
        index += 1
        switch escaped {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
            UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            return true
        case UInt8(ascii: "u"):
            guard index + 4 <= bytes.count else { return false }
            for offset in 0..<4 where JSONStringSpan.hexValue(bytes[index + offset]) == nil {
                return false
            }
            index += 4
            return true
        default:
            return false
        }
    }

    func peek() -> UInt8? {
        index < bytes.count ? bytes[index] : nil
    }

    mutating func consume(_ byte: UInt8) -> Bool {
        guard peek() == byte else { return false }
        index += 1
        return true
    }

    mutating func consume(literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        let literalBytes = UnsafeBufferPointer(start: literal.utf8Start, count: count)
        for offset in 0..<count where bytes[index + offset] != literalBytes[offset] {
            return false
        }
        index += count
        return true
    }

    mutating func skipWhitespace() {
        while let byte = peek(),
            byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
        {
            index += 1
        }
    }
}
