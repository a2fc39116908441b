/// JSON string literals, written by hand because they are the bulk of `--json` and `export` output.
public enum JSONText {
    /// Appends a JSON string literal with its quotes: `"` `\` and U+0000–U+001F are escaped (`\n`
    /// `\r` `\t` `\b` `\f` in short form, the others as `\u00XX`); everything else is copied as
    /// UTF-8 unescaped, as RFC 8259 allows.
    public static func appendQuoted(_ text: String, to output: inout String) {
        output.append("\"")
        let utf8 = text.utf8
        var runStart = utf8.startIndex
        var index = utf8.startIndex
        while index != utf8.endIndex {
            let byte = utf8[index]
            if byte < 0x20 || byte == quote || byte == backslash {
                appendRun(of: text, from: runStart, to: index, to: &output)
                appendEscape(for: byte, to: &output)
                runStart = utf8.index(after: index)
            }
            index = utf8.index(after: index)
        }
        if runStart == utf8.startIndex {
            output.append(text)
        } else {
            appendRun(of: text, from: runStart, to: utf8.endIndex, to: &output)
        }
        output.append("\"")
    }

    /// `appendQuoted` into a new string.
    public static func quoted(_ text: String) -> String {
        var output = ""
        output.reserveCapacity(text.utf8.count + 2)
        appendQuoted(text, to: &output)
        return output
    }

    private static let quote = UInt8(ascii: "\"")
    private static let backslash = UInt8(ascii: "\\")

    private static func appendEscape(for byte: UInt8, to output: inout String) {
        switch byte {
        case quote: output.append("\\\"")
        case backslash: output.append("\\\\")
        case 0x0A: output.append("\\n")
        case 0x0D: output.append("\\r")
        case 0x09: output.append("\\t")
        case 0x08: output.append("\\b")
        case 0x0C: output.append("\\f")
        default:
            output.append("\\u00")
            output.append(hexDigit(byte >> 4))
            output.append(hexDigit(byte & 0x0F))
        }
    }

    private static func hexDigit(_ value: UInt8) -> Character {
        Character(Unicode.Scalar(value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10))
    }
}

/// Appends the text between two indices that sit on ASCII bytes.
///
/// Slicing the unicode-scalar view, not the string, matters: a quote followed by a combining mark
/// is one Character, and a String slice would round the bounds to Character boundaries.
func appendRun(of text: String, from start: String.Index, to end: String.Index, to output: inout String) {
    guard start != end else { return }
    output.append(contentsOf: Substring(text.unicodeScalars[start..<end]))
}
