// SPDX-License-Identifier: Apache-2.0

/// Where a validated JSON string's content lies (between its quotes), and whether it holds
/// escapes; decoding is left until the string is wanted.
struct JSONStringSpan {
    var range: Range<Int>
    var hasEscapes: Bool

    /// Whether the string equals `key` (UTF-8, unescaped).
    func matches(_ key: [UInt8], in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard hasEscapes else {
            return range.count == key.count && bytes[range].elementsEqual(key)
        }
        return Array(decoded(from: bytes).utf8) == key
    }

    /// The string's value. The text around it is valid UTF-8 and the span was validated, so the
    /// only repair is U+FFFD for a `\u` escape naming a lone surrogate.
    func decoded(from bytes: UnsafeBufferPointer<UInt8>) -> String {
        guard hasEscapes else {
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        }
        var utf8 = [UInt8]()
        utf8.reserveCapacity(range.count)
        func append(_ scalar: Unicode.Scalar) {
            UTF8.encode(scalar) { utf8.append($0) }
        }
        var index = range.lowerBound
        while index < range.upperBound {
            let byte = bytes[index]
            guard byte == UInt8(ascii: "\\") else {
                utf8.append(byte)
                index += 1
                continue
            }
            let escaped = bytes[index + 1]
            index += 2
            guard escaped == UInt8(ascii: "u") else {
                append(Self.simpleEscape(escaped))
                continue
            }
            let unit = Self.codeUnit(at: index, in: bytes)
            index += 4
            if UTF16.isLeadSurrogate(unit), index + 6 <= range.upperBound,
                bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
            {
                let trail = Self.codeUnit(at: index + 2, in: bytes)
                if UTF16.isTrailSurrogate(trail) {
                    index += 6
                    let value = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(trail) - 0xDC00)
                    append(Unicode.Scalar(value) ?? "\u{FFFD}")
                    continue
                }
            }
            // A lone surrogate is no scalar: Unicode.Scalar(UInt16) is nil for it.
            append(Unicode.Scalar(unit) ?? "\u{FFFD}")
        }
        return String(decoding: utf8, as: UTF8.self)
    }

    private static func simpleEscape(_ byte: UInt8) -> Unicode.Scalar {
        switch byte {
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        default: return Unicode.Scalar(byte)  // \" \\ \/
        }
    }

    private static func codeUnit(at index: Int, in bytes: UnsafeBufferPointer<UInt8>) -> UInt16 {
        var unit: UInt16 = 0
        for offset in 0..<4 {
            unit = unit << 4 | UInt16(hexValue(bytes[index + offset]) ?? 0)
        }
        return unit
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
