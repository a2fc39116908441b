// SPDX-License-Identifier: Apache-2.0

/// Makes stored text safe to print on a terminal: a push is untrusted input, and an escape sequence
/// in its title must not move the cursor, retitle the window or hide lines.
package enum TerminalText {
    /// Control characters (C0 except newline and tab, DEL, C1) in caret notation, like `cat -v`:
    /// ESC becomes "^[", NUL "^@", DEL "^?", C1 "M-^[" style as "<U+009B>".
    package static func sanitized(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x0A, 0x09:
                result.unicodeScalars.append(scalar)
            case 0x00..<0x20:
                result += "^" + String(UnicodeScalar(UInt8(scalar.value + 0x40)))
            case 0x7F:
                result += "^?"
            case 0x80..<0xA0:
                result += "<U+" + String(scalar.value, radix: 16, uppercase: true) + ">"
            default:
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        return (value < 0x20 && value != 0x0A && value != 0x09) || (0x7F..<0xA0).contains(value)
    }
}
