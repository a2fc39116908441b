/// Finds the line of a key in the configuration text, which TOMLKit does not report.
///
/// The file is flat, so a key sits at the start of its line: `key = value`, `"key" = value`, or
/// `key.sub = value` for a dotted key; a table starts with `[key]` or `[[key]]`. Lines inside
/// multi-line strings are skipped so that a `"""` block cannot shadow a real key.
struct KeyLocator {
    private var keyLines: [String: Int] = [:]
    private var tableLines: [String: Int] = [:]

    init(text: String) {
        var insideMultilineString: String?
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingWhitespace()
            let number = index + 1
            if let delimiter = insideMultilineString {
                if line.occurrences(of: delimiter) % 2 == 1 { insideMultilineString = nil }
                continue
            }
            if line.hasPrefix("[") {
                let name = line.drop { $0 == "[" }.prefix { !"].".contains($0) }.trimmingWhitespace()
                record(Self.unquoted(name), line: number, in: &tableLines)
            } else if let equals = line.firstIndex(of: "=") {
                let name = line[..<equals].prefix { $0 != "." }.trimmingWhitespace()
                record(Self.unquoted(name), line: number, in: &keyLines)
            }
            for delimiter in ["\"\"\"", "'''"] where line.occurrences(of: delimiter) % 2 == 1 {
                insideMultilineString = delimiter
            }
        }
    }

    /// The line where `key` is assigned.
    func line(ofKey key: String) -> Int? { keyLines[key] }

    /// The line of the `[key]` or `[[key]]` header, else of a dotted `key.sub =` assignment.
    func line(ofTable key: String) -> Int? { tableLines[key] ?? keyLines[key] }

    private func record(_ name: String, line: Int, in lines: inout [String: Int]) {
        // TOML forbids defining a key twice, so the first line is the one that matters.
        if lines[name] == nil { lines[name] = line }
    }

    private static func unquoted(_ name: Substring) -> String {
        if name.count >= 2, let first = name.first, first == name.last, first == "\"" || first == "'" {
            return String(name.dropFirst().dropLast())
        }
        return String(name)
    }
}

extension StringProtocol {
    fileprivate func occurrences(of needle: String) -> Int {
        ranges(of: needle).count
    }
}
