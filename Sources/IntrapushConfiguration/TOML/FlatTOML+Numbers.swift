// SPDX-License-Identifier: Apache-2.0

extension FlatTOML.Parser {
    /// An integer, a float, or a date/time (known, not read: the configuration has none).
    mutating func numberOrDate() throws(FlatTOML.SyntaxError) -> RawSetting.Value {
        let start = index
        while let byte = current, Self.isBareKeyByte(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: ".")
            || byte == UInt8(ascii: ":")
        {
            advance()
        }
        // A date and a time may be separated by a space: 1979-05-27 07:32:00.
        if Self.isDate(bytes[start..<index]), current == 0x20, let next = peek(1), (0x30...0x39).contains(next) {
            advance()
            while let byte = current, Self.isBareKeyByte(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: ".")
                || byte == UInt8(ascii: ":")
            {
                advance()
            }
        }
        let token = String(decoding: bytes[start..<index], as: UTF8.self)
        if let kind = Self.dateKind(token) { return .other(typeName: kind) }
        if let integer = Self.integer(token) { return .integer(integer) }
        if let double = Self.double(token) { return .double(double) }
        index = start
        // The token is not repeated: an unquoted token (`token = s3cr3t`) is the usual culprit.
        throw error(token.isEmpty ? "expected a value" : "the value is not a TOML value; put text in double quotes")
    }

    static func isDate(_ token: ArraySlice<UInt8>) -> Bool {
        let text = Array(token)
        guard text.count == 10 else { return false }
        return text.enumerated().allSatisfy { offset, byte in
            offset == 4 || offset == 7 ? byte == UInt8(ascii: "-") : (0x30...0x39).contains(byte)
        }
    }

    /// "a date", "a time" or "a date-time" (as TOMLKit named them), after the shapes of RFC 3339.
    static func dateKind(_ token: String) -> String? {
        let bytes = Array(token.utf8)
        let hasDate = bytes.count >= 10 && isDate(bytes[0..<10])
        let timeStart = hasDate ? 11 : 0
        let hasTime = bytes.count >= timeStart + 8 && bytes[timeStart + 2] == UInt8(ascii: ":")
            && bytes[timeStart + 5] == UInt8(ascii: ":")
        if hasDate && bytes.count == 10 { return "a date" }
        if hasDate && hasTime { return "a date-time" }
        if !hasDate && hasTime { return "a time" }
        return nil
    }

    /// Decimal with single underscores between digits and no leading zero, or 0x, 0o, 0b.
    static func integer(_ token: String) -> Int? {
        for (prefix, radix) in [("0x", 16), ("0o", 8), ("0b", 2)] where token.hasPrefix(prefix) {
            let digits = token.dropFirst(2)
            guard underscoresBetweenDigits(digits, radix: radix) else { return nil }
            return Int(digits.replacing("_", with: ""), radix: radix)
        }
        var digits = Substring(token)
        if digits.first == "+" || digits.first == "-" { digits = digits.dropFirst() }
        guard underscoresBetweenDigits(digits, radix: 10), !(digits.count > 1 && digits.first == "0") else { return nil }
        return Int(token.replacing("_", with: ""))
    }

    /// [+-] integer part, then a fraction, an exponent or both; or inf and nan.
    static func double(_ token: String) -> Double? {
        var text = Substring(token)
        let negative = text.first == "-"
        if text.first == "+" || text.first == "-" { text = text.dropFirst() }
        if text == "inf" { return negative ? -.infinity : .infinity }
        if text == "nan" { return .nan }
        let exponentAt = text.firstIndex { $0 == "e" || $0 == "E" }
        let mantissa = exponentAt.map { text[..<$0] } ?? text
        let parts = mantissa.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, exponentAt != nil || parts.count == 2,
            underscoresBetweenDigits(parts[0], radix: 10), !(parts[0].count > 1 && parts[0].first == "0")
        else { return nil }
        if parts.count == 2 && !underscoresBetweenDigits(parts[1], radix: 10) { return nil }
        if let exponentAt {
            var exponent = text[text.index(after: exponentAt)...]
            if exponent.first == "+" || exponent.first == "-" { exponent = exponent.dropFirst() }
            guard underscoresBetweenDigits(exponent, radix: 10) else { return nil }
        }
        return Double(token.replacing("_", with: ""))
    }

    static func underscoresBetweenDigits(_ text: Substring, radix: Int) -> Bool {
        guard let first = text.first, let last = text.last, first != "_", last != "_" else { return false }
        var previous: Character = "0"
        for character in text {
            if character == "_" {
                guard previous != "_" else { return false }
            } else if !(character.hexDigitValue.map { $0 < radix } ?? false) {
                return false
            }
            previous = character
        }
        return true
    }
}
