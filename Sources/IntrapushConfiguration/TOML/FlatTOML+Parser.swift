// SPDX-License-Identifier: Apache-2.0

extension FlatTOML {
    /// A recursive-descent reader over the UTF-8 bytes, after the TOML 1.0 grammar.
    struct Parser {
        let bytes: [UInt8]
        var index = 0
        var line = 1
        var lineStart = 0
        /// Arrays and inline tables open around the current position.
        var depth = 0
        static let deepestNesting = 64

        init(bytes: [UInt8]) {
            self.bytes = bytes
        }

        var current: UInt8? { index < bytes.count ? bytes[index] : nil }
        func peek(_ offset: Int) -> UInt8? { index + offset < bytes.count ? bytes[index + offset] : nil }
        func at(_ text: String) -> Bool {
            let count = text.utf8.count
            return index + count <= bytes.count && bytes[index..<(index + count)].elementsEqual(text.utf8)
        }

        func error(_ message: String) -> SyntaxError {
            SyntaxError(line: line, column: index - lineStart + 1, message: message)
        }

        mutating func advance(_ count: Int = 1) { index += count }

        mutating func newline() {
            advance()
            line += 1
            lineStart = index
        }

        mutating func skipSpaces() {
            while let byte = current, byte == 0x20 || byte == 0x09 { advance() }
        }

        mutating func skipComment() throws(SyntaxError) {
            guard current == UInt8(ascii: "#") else { return }
            while let byte = current, byte != 0x0A {
                if byte == 0x0D && peek(1) == 0x0A { break }
                if byte < 0x20 && byte != 0x09 || byte == 0x7F { throw error("control character in a comment") }
                advance()
            }
        }

        /// Past a line ending (LF or CRLF); false when there is none here.
        mutating func skipLineEnd() -> Bool {
            if current == 0x0A { newline(); return true }
            if current == 0x0D && peek(1) == 0x0A { advance(); newline(); return true }
            return false
        }

        /// Spaces, comments and line endings, as between array elements.
        mutating func skipBlank() throws(SyntaxError) {
            while true {
                skipSpaces()
                try skipComment()
                if !skipLineEnd() { return }
            }
        }

        mutating func document() throws(SyntaxError) -> [Entry] {
            var entries: [Entry] = []
            var seen: Set<String> = []
            var insideTable = false
            while true {
                try skipBlank()
                guard let byte = current else { return entries }
                let startLine = line
                if byte == UInt8(ascii: "[") {
                    let name = try tableHeader()
                    insideTable = true
                    entries.append(Entry(name: name, line: startLine, value: .other(typeName: "a table"), isTable: true))
                } else {
                    let (keys, value) = try keyValue()
                    if !insideTable {
                        let dotted = keys.count > 1
                        if !dotted {
                            guard seen.insert(keys[0]).inserted else {
                                throw SyntaxError(line: startLine, column: 1, message: "\(keys[0]) is defined twice")
                            }
                        }
                        entries.append(Entry(name: keys[0], line: startLine, value: value, isTable: dotted))
                    }
                }
                skipSpaces()
                try skipComment()
                guard current == nil || skipLineEnd() else { throw error("expected the end of the line") }
            }
        }

        /// `[name]` or `[[name]]`: its first key.
        mutating func tableHeader() throws(SyntaxError) -> String {
            advance()
            let isArray = current == UInt8(ascii: "[")
            if isArray { advance() }
            skipSpaces()
            let keys = try dottedKey()
            skipSpaces()
            guard current == UInt8(ascii: "]") else { throw error("expected ] to close the table header") }
            advance()
            if isArray {
                guard current == UInt8(ascii: "]") else { throw error("expected ]] to close the table header") }
                advance()
            }
            return keys[0]
        }

        mutating func keyValue() throws(SyntaxError) -> ([String], RawSetting.Value) {
            let keys = try dottedKey()
            skipSpaces()
            guard current == UInt8(ascii: "=") else { throw error("expected = after the key") }
            advance()
            skipSpaces()
            return (keys, try value())
        }

        mutating func dottedKey() throws(SyntaxError) -> [String] {
            var keys = [try simpleKey()]
            while true {
                let mark = (index, line, lineStart)
                skipSpaces()
                guard current == UInt8(ascii: ".") else {
                    (index, line, lineStart) = mark
                    return keys
                }
                advance()
                skipSpaces()
                keys.append(try simpleKey())
            }
        }

        mutating func simpleKey() throws(SyntaxError) -> String {
            switch current {
            case UInt8(ascii: "\""): return try basicString()
            case UInt8(ascii: "'"): return try literalString()
            default:
                let start = index
                while let byte = current, Self.isBareKeyByte(byte) { advance() }
                guard index > start else { throw error("expected a key") }
                return String(decoding: bytes[start..<index], as: UTF8.self)
            }
        }

        static func isBareKeyByte(_ byte: UInt8) -> Bool {
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
    }
}
