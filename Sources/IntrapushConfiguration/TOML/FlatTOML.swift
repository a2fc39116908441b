// SPDX-License-Identifier: Apache-2.0

/// A reader of TOML for `intrapush.conf`: every value type, reported flat as `key = value` entries.
///
/// Not TOMLKit: it imports Foundation's `Calendar` for dates, which links ICU's data into both
/// binaries. The configuration needs no dates, only to know one when it sees it (a type
/// error) and to reject what is not TOML. TOMLKit stays the oracle of the differential test.
enum FlatTOML {
    struct Entry: Equatable {
        /// The key; for a `[table]`, `[[array]]` or `dotted.key`, its first part.
        var name: String
        var line: Int
        var value: RawSetting.Value
        /// A table header or a dotted key: something a flat file does not have.
        var isTable: Bool
    }

    struct SyntaxError: Error, Equatable {
        var line: Int
        var column: Int
        var message: String
    }

    /// The top-level entries in file order; what a table contains is parsed, not returned.
    static func parse(_ text: String) throws(SyntaxError) -> [Entry] {
        var parser = Parser(bytes: Array(text.utf8))
        return try parser.document()
    }
}

extension RawSetting.Value: Equatable {
    static func == (left: Self, right: Self) -> Bool {
        switch (left, right) {
        case (.string(let a), .string(let b)): a == b
        case (.integer(let a), .integer(let b)): a == b
        case (.double(let a), .double(let b)): a == b || (a.isNaN && b.isNaN)
        case (.bool(let a), .bool(let b)): a == b
        case (.strings(let a), .strings(let b)): a == b
        case (.other(let a), .other(let b)): a == b
        case (.environment(let a), .environment(let b)): a == b
        default: false
        }
    }
}
