// SPDX-License-Identifier: Apache-2.0

import TestSupport
import TOMLKit
import Testing

@testable import IntrapushConfiguration

/// FlatTOML against TOMLKit (toml++), the reader it replaces: the same verdict on every document,
/// the same values for the valid ones.
@Suite struct FlatTOMLTests {
    static let valid: [String] = [
        #"host = "push.corp:8080""#,
        "org = 'literal \\no escape'",
        #"text = "tab\there \"quoted\" \\ back \u00e9 \U0001F600""#,
        "n = 42\nm = -17\np = +3\nq = 1_000_000\nh = 0xDEAD_beef\no = 0o755\nb = 0b1101",
        "f = 3.14\ng = -0.5e-3\nh = 6E+2\ni = 1_000.000_1\nj = inf\nk = -inf\nl = nan",
        "yes = true\nno = false",
        "headers = [\"A: 1\", 'B: 2',\n  # a comment\n  \"C: 3\", ]",
        "empty = []",
        "mixed = [1, \"a\"]",
        "numbers = [1, 2]",
        "nested = [[\"a\"], [\"b\"]]",
        "t = { a = 1, b = \"x\" }",
        "e = {}",
        "d = 1979-05-27",
        "dt = 1979-05-27T07:32:00Z",
        "dt2 = 1979-05-27 07:32:00.999-07:00",
        "lt = 07:32:00",
        "hello = \"\"\"\nfirst\nsecond \\\n   third\"\"\"",
        "raw = '''\nC:\\path\n''it''s'''''",
        "q = \"\"\"one \"\"two\"\"\"\"\"",
        "\"quoted key\" = 1",
        "# only a comment\n\n   # another\r\nkey = \"v\" # trailing\r\n",
        "a.b = 1",
        "[table]\nkey = 1",
        "[[items]]\nname = \"x\"\n[[items]]\nname = \"y\"",
        "x = 1\n[t]\nx = 2",
    ]

    static let invalid: [String] = [
        "key = ", "key", "= 1", "key = \"open", "key = 'open", "key = \"a\nb\"", "key = \"\\q\"",
        "key = 1 2", "key = 01", "key = 1__0", "key = _1", "key = 1.", "key = .5", "key = 0x", "key = tru",
        "key = [1, 2", "key = [1 2]", "key = { a = 1", "a = 1\na = 2", "[table", "key = \"\\u12\"",
        "key = \"\"\"never closed", "key = 1e", "key = nan1", "k = 1\n[t]\n[t", "key = \"\u{1}\"",
    ]

    @Test("valid documents: the same entries and values as TOMLKit", arguments: valid)
    func validDocuments(text: String) throws {
        let entries = try FlatTOML.parse(text)
        let table = try TOMLTable(string: text)
        #expect(Set(entries.map(\.name)) == Set(table.keys), "\(entries.map(\.name)) vs \(Array(table.keys))")
        for entry in entries where !entry.isTable {
            let expected = Self.value(of: try #require(table[entry.name]))
            #expect(entry.value == expected, "\(entry.name): \(entry.value) vs \(expected)")
        }
    }

    @Test("invalid documents: both refuse them", arguments: invalid)
    func invalidDocuments(text: String) {
        #expect(throws: (any Error).self, "TOMLKit refuses \(text.debugDescription)") { try TOMLTable(string: text) }
        #expect(throws: FlatTOML.SyntaxError.self, "FlatTOML refuses \(text.debugDescription)") { try FlatTOML.parse(text) }
    }

    @Test("errors say where: line and column")
    func errorPosition() {
        #expect(throws: FlatTOML.SyntaxError(line: 3, column: 7, message: "expected a value")) {
            try FlatTOML.parse("a = 1\n\nkey = \n")
        }
    }

    @Test("an unquoted value is refused without being repeated: it may be the token")
    func unquotedValueNotEchoed() throws {
        do {
            _ = try FlatTOML.parse("token = s3cr3t\n")
            Issue.record("an unquoted value was accepted")
        } catch {
            #expect(!error.message.contains("s3cr3t"))
            #expect(error.message.contains("double quotes"))
            #expect(error.line == 1)
        }
    }

    @Test("deep nesting is a syntax error, not a stack overflow")
    func deepNesting() {
        for opening in ["[", "{ a = "] {
            let text = "a = " + String(repeating: opening, count: 100_000)
            #expect(throws: FlatTOML.SyntaxError.self) { try FlatTOML.parse(text) }
        }
        let nested = "a = " + String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(throws: Never.self) { try FlatTOML.parse(nested) }
    }

    /// What `ConfigurationFile` made of a TOMLKit value before FlatTOML.
    static func value(of value: any TOMLValueConvertible) -> RawSetting.Value {
        switch value.type {
        case .string: return .string(value.string ?? "")
        case .int: return .integer(value.int ?? 0)
        case .double: return .double(value.double ?? 0)
        case .bool: return .bool(value.bool ?? false)
        case .array:
            guard let array = value.array else { return .other(typeName: "?") }
            let strings = array.compactMap(\.string)
            return strings.count == array.count ? .strings(strings) : .other(typeName: "an array of other values than strings")
        case .table: return .other(typeName: "a table")
        case .date, .time, .dateTime: return .other(typeName: "a \(value.type)")
        }
    }
}
