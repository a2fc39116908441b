// SPDX-License-Identifier: Apache-2.0

/// JSON string literals, written by hand because they are the bulk of `--json` and `export` output.
package enum JSONText {
    /// Appends a JSON string literal with its quotes: `"` `\` and U+0000–U+001F are escaped (`\n`
    /// `\r` `\t` `\b` `\f` in short form, the others as `\u00XX`); everything else is copied as
    /// UTF-8 unescaped, as RFC 8259 allows.
    package static func appendQuoted(_ text: String, to output: inout String) {
        var text = text
        // Sizing first lets the escaped form be written in one pass into one exact allocation, and
        // text without escapes (most titles) be appended with none.
        let escaped: String? = text.withUTF8 { bytes in
            var length = 2
            for byte in bytes { length += escapedLength(byte) }
            guard length != bytes.count + 2 else { return nil }
            return String(unsafeUninitializedCapacity: length) { buffer in
                var writer = ByteWriter(buffer: buffer)
                writer.write(quote)
                for byte in bytes { writeEscaped(byte, to: &writer) }
                writer.write(quote)
                return writer.position
            }
        }
        if let escaped {
            output.append(escaped)
        } else {
            output.append("\"")
            output.append(text)
            output.append("\"")
        }
    }

    /// The content of the JSON string literal of `text`, without its quotes. (Dropped as
    /// scalars: a text that starts with a combining mark makes one Character of it and the quote.)
    package static func escaped(_ text: String) -> String {
        String(quoted(text).unicodeScalars.dropFirst().dropLast())
    }

    /// `appendQuoted` into a new string.
    package static func quoted(_ text: String) -> String {
        var output = ""
        output.reserveCapacity(text.utf8.count + 2)
        appendQuoted(text, to: &output)
        return output
    }

    static let quote = UInt8(ascii: "\"")
    private static let backslash = UInt8(ascii: "\\")

    @inline(__always)
    static func escapedLength(_ byte: UInt8) -> Int {
        if byte == quote || byte == backslash { return 2 }
        if byte >= 0x20 { return 1 }
        switch byte {
        case 0x0A, 0x0D, 0x09, 0x08, 0x0C: return 2
        default: return 6
        }
    }

    @inline(__always)
    static func writeEscaped(_ byte: UInt8, to writer: inout ByteWriter) {
        let shortForm: UInt8
        switch byte {
        case quote, backslash: shortForm = byte
        case 0x0A: shortForm = UInt8(ascii: "n")
        case 0x0D: shortForm = UInt8(ascii: "r")
        case 0x09: shortForm = UInt8(ascii: "t")
        case 0x08: shortForm = UInt8(ascii: "b")
        case 0x0C: shortForm = UInt8(ascii: "f")
        case 0x20...: writer.write(byte); return
        default:
            writer.write(backslash)
            writer.write(UInt8(ascii: "u"))
            writer.write(UInt8(ascii: "0"))
            writer.write(UInt8(ascii: "0"))
            writer.write(hexDigit(byte >> 4))
            writer.write(hexDigit(byte & 0x0F))
            return
        }
        writer.write(backslash)
        writer.write(shortForm)
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }
}
