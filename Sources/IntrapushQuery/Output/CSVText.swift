// SPDX-License-Identifier: Apache-2.0

import IntrapushSupport
/// CSV records as RFC 4180 has them, for `export --format csv`.
package enum CSVText {
    /// Appends one record ending in CRLF. A field is quoted when it contains `,` `"` CR or LF, or
    /// starts or ends with a space, and its quotes are doubled. `nil` is an empty unquoted field,
    /// while an empty string is `""`, so that readers that tell NULL from empty (PostgreSQL's
    /// `COPY … CSV`) can.
    package static func appendRecord(_ fields: [String?], to output: inout String) {
        for (position, field) in fields.enumerated() {
            if position > 0 { output.append(",") }
            if let field { appendField(field, to: &output) }
        }
        output.append("\r\n")
    }

    private static let quote = UInt8(ascii: "\"")

    private static func appendField(_ field: String, to output: inout String) {
        var field = field
        let (needsQuotes, doubled): (Bool, String?) = field.withUTF8 { bytes in
            guard let first = bytes.first, let last = bytes.last else { return (true, nil) }
            var needsQuotes = first == UInt8(ascii: " ") || last == UInt8(ascii: " ")
            var quotes = 0
            for byte in bytes {
                switch byte {
                case quote: quotes += 1
                case UInt8(ascii: ","), 0x0D, 0x0A: needsQuotes = true
                default: break
                }
            }
            guard quotes > 0 else { return (needsQuotes, nil) }
            // One exact allocation for the quoted form, rather than a copy per run between quotes.
            let quoted = String(unsafeUninitializedCapacity: bytes.count + quotes + 2) { buffer in
                var writer = ByteWriter(buffer: buffer)
                writer.write(quote)
                for byte in bytes {
                    writer.write(byte)
                    if byte == quote { writer.write(quote) }
                }
                writer.write(quote)
                return writer.position
            }
            return (true, quoted)
        }
        if let doubled {
            output.append(doubled)
        } else if needsQuotes {
            output.append("\"")
            output.append(field)
            output.append("\"")
        } else {
            output.append(field)
        }
    }
}
