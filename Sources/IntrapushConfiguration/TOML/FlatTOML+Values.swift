// SPDX-License-Identifier: Apache-2.0

extension FlatTOML.Parser {
    mutating func value() throws(FlatTOML.SyntaxError) -> RawSetting.Value {
        switch current {
        case UInt8(ascii: "\""):
            return .string(at("\"\"\"") ? try multilineString(quote: UInt8(ascii: "\""), escapes: true) : try basicString())
        case UInt8(ascii: "'"):
            return .string(at("'''") ? try multilineString(quote: UInt8(ascii: "'"), escapes: false) : try literalString())
        case UInt8(ascii: "["):
            return try array()
        case UInt8(ascii: "{"):
            try inlineTable()
            return .other(typeName: "a table")
        case nil:
            throw error("expected a value")
        default:
            if at("true") && !continuesBareWord(4) { advance(4); return .bool(true) }
            if at("false") && !continuesBareWord(5) { advance(5); return .bool(false) }
            return try numberOrDate()
        }
    }

    func continuesBareWord(_ offset: Int) -> Bool {
        peek(offset).map(Self.isBareKeyByte) ?? false
    }

    // MARK: Strings

    mutating func basicString() throws(FlatTOML.SyntaxError) -> String {
        advance()
        var text: [UInt8] = []
        while true {
            guard let byte = current else { throw error("the string is not closed") }
            switch byte {
            case UInt8(ascii: "\""):
                advance()
                return String(decoding: text, as: UTF8.self)
            case UInt8(ascii: "\\"):
                text.append(contentsOf: try escape())
            case 0x0A, 0x0D:
                throw error("the string is not closed on its line")
            default:
                try checkStringByte(byte)
                text.append(byte)
                advance()
            }
        }
    }

    mutating func literalString() throws(FlatTOML.SyntaxError) -> String {
        advance()
        let start = index
        while current != UInt8(ascii: "'") {
            guard let byte = current, byte != 0x0A, byte != 0x0D else { throw error("the string is not closed on its line") }
            try checkStringByte(byte)
            advance()
        }
        defer { advance() }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    /// `"""…"""` (with escapes) or `'''…'''` (without).
    mutating func multilineString(quote: UInt8, escapes: Bool) throws(FlatTOML.SyntaxError) -> String {
        let delimiter = String(repeating: Character(Unicode.Scalar(quote)), count: 3)
        advance(3)
        _ = skipLineEnd()  // a newline right after the delimiter is not part of the string
        var text: [UInt8] = []
        while true {
            guard let byte = current else { throw error("the string is not closed") }
            if at(delimiter) {
                // Up to two quotes may end the content right before the delimiter.
                var quotes = 3
                while peek(quotes) == quote && quotes < 5 { quotes += 1 }
                text.append(contentsOf: Array(repeating: quote, count: quotes - 3))
                advance(quotes)
                return String(decoding: text, as: UTF8.self)
            }
            if escapes && byte == UInt8(ascii: "\\") {
                let mark = index
                advance()
                skipSpaces()
                if current == 0x0A || current == 0x0D {
                    // A line-ending backslash trims the line break and the white space after it.
                    while true {
                        skipSpaces()
                        if !skipLineEnd() { break }
                    }
                    continue
                }
                index = mark
                text.append(contentsOf: try escape())
            } else if skipLineEnd() {
                text.append(0x0A)
            } else {
                try checkStringByte(byte)
                text.append(byte)
                advance()
            }
        }
    }

    func checkStringByte(_ byte: UInt8) throws(FlatTOML.SyntaxError) {
        if byte < 0x20 && byte != 0x09 || byte == 0x7F { throw error("control character in a string; write it as an escape") }
    }

    mutating func escape() throws(FlatTOML.SyntaxError) -> [UInt8] {
        advance()
        guard let byte = current else { throw error("the string is not closed") }
        advance()
        switch byte {
        case UInt8(ascii: "b"): return [0x08]
        case UInt8(ascii: "t"): return [0x09]
        case UInt8(ascii: "n"): return [0x0A]
        case UInt8(ascii: "f"): return [0x0C]
        case UInt8(ascii: "r"): return [0x0D]
        case UInt8(ascii: "\""): return [0x22]
        case UInt8(ascii: "\\"): return [0x5C]
        case UInt8(ascii: "u"), UInt8(ascii: "U"):
            let digits = byte == UInt8(ascii: "u") ? 4 : 8
            guard index + digits <= bytes.count,
                let code = UInt32(String(decoding: bytes[index..<(index + digits)], as: UTF8.self), radix: 16),
                let scalar = Unicode.Scalar(code)
            else { throw error("\\\(Character(Unicode.Scalar(byte))) needs \(digits) hexadecimal digits of a Unicode scalar") }
            advance(digits)
            return Array(String(Character(scalar)).utf8)
        default:
            throw error("unknown escape \\\(Character(Unicode.Scalar(byte)))")
        }
    }

    // MARK: Arrays and inline tables

    mutating func array() throws(FlatTOML.SyntaxError) -> RawSetting.Value {
        try enterNesting()
        defer { depth -= 1 }
        advance()
        var strings: [String] = []
        var onlyStrings = true
        while true {
            try skipBlank()
            if current == UInt8(ascii: "]") { break }
            let element = try value()
            if case .string(let text) = element { strings.append(text) } else { onlyStrings = false }
            try skipBlank()
            if current == UInt8(ascii: ",") { advance(); continue }
            guard current == UInt8(ascii: "]") else { throw error("expected , or ] in the array") }
            break
        }
        advance()
        return onlyStrings ? .strings(strings) : .other(typeName: "an array of other values than strings")
    }

    mutating func inlineTable() throws(FlatTOML.SyntaxError) {
        try enterNesting()
        defer { depth -= 1 }
        advance()
        skipSpaces()
        if current == UInt8(ascii: "}") { advance(); return }
        while true {
            skipSpaces()
            _ = try keyValue()
            skipSpaces()
            if current == UInt8(ascii: ",") { advance(); continue }
            guard current == UInt8(ascii: "}") else { throw error("expected , or } in the inline table") }
            advance()
            return
        }
    }

    /// Arrays and inline tables are read by recursion: a bound on their nesting keeps a hostile
    /// file from overflowing the stack (the configuration itself nests one level at most).
    private mutating func enterNesting() throws(FlatTOML.SyntaxError) {
        guard depth < FlatTOML.Parser.deepestNesting else {
            throw error("arrays and inline tables nest deeper than \(FlatTOML.Parser.deepestNesting) levels")
        }
        depth += 1
    }
}
