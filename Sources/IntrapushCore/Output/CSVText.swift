/// CSV records as RFC 4180 has them, for `export --format csv`.
public enum CSVText {
    /// Appends one record ending in CRLF. A field is quoted when it contains `,` `"` CR or LF, or
    /// starts or ends with a space, and its quotes are doubled. `nil` is an empty unquoted field,
    /// while an empty string is `""`, so that readers that tell NULL from empty (PostgreSQL's
    /// `COPY … CSV`) can.
    public static func appendRecord(_ fields: [String?], to output: inout String) {
        for (position, field) in fields.enumerated() {
            if position > 0 { output.append(",") }
            guard let field else { continue }
            if needsQuotes(field) {
                appendQuoted(field, to: &output)
            } else {
                output.append(field)
            }
        }
        output.append("\r\n")
    }

    private static let quote = UInt8(ascii: "\"")
    private static let space = UInt8(ascii: " ")

    private static func needsQuotes(_ field: String) -> Bool {
        let utf8 = field.utf8
        guard let first = utf8.first, let last = utf8.last else { return true }
        if first == space || last == space { return true }
        return utf8.contains { $0 == UInt8(ascii: ",") || $0 == quote || $0 == 0x0D || $0 == 0x0A }
    }

    private static func appendQuoted(_ field: String, to output: inout String) {
        output.append("\"")
        let utf8 = field.utf8
        var runStart = utf8.startIndex
        var index = utf8.startIndex
        while index != utf8.endIndex {
            if utf8[index] == quote {
                let next = utf8.index(after: index)
                // The run includes this quote; starting the next run on it writes it a second time.
                appendRun(of: field, from: runStart, to: next, to: &output)
                runStart = index
            }
            index = utf8.index(after: index)
        }
        appendRun(of: field, from: runStart, to: utf8.endIndex, to: &output)
        output.append("\"")
    }
}
