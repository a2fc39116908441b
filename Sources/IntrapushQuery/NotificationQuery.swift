import IntrapushInterface
import IntrapushStore
/// Which notifications `list`, `count` and `export` select, and in what order.
package struct NotificationQuery: Sendable, Equatable {
    package enum Order: Sendable, Equatable {
        /// Newest first (highest id first): `list`.
        case newestFirst
        /// The same selection as `newestFirst` (the newest `limit`), printed oldest first: `list --reverse`.
        case newestFirstReversed
        /// Oldest first over everything selected: `export`.
        case oldestFirst
    }

    /// Received at or after, Unix ms.
    package var since: Int64?
    /// Received before, Unix ms.
    package var until: Int64?
    package var unreadOnly: Bool
    /// Substring of title, body or payload; see `TextMatch`.
    package var text: TextMatch?
    /// At most this many; `nil` for all.
    package var limit: Int?
    package var order: Order
    /// Only these ids: a parallel worker's share, `show`'s one id, the ids after `follow`'s last.
    var idRange: ClosedRange<Int64>?

    package init(
        since: Int64? = nil, until: Int64? = nil, unreadOnly: Bool = false, text: TextMatch? = nil,
        limit: Int? = nil, order: Order = .newestFirst
    ) {
        self.since = since
        self.until = until
        self.unreadOnly = unreadOnly
        self.text = text
        self.limit = limit
        self.order = order
    }

    /// The WHERE clause (empty or starting with " WHERE") and the values for its placeholders.
    func filter() -> (sql: String, values: [SQLValue]) {
        var conditions: [String] = []
        var values: [SQLValue] = []
        if let since {
            conditions.append("received_at >= ?")
            values.append(.integer(since))
        }
        if let until {
            conditions.append("received_at < ?")
            values.append(.integer(until))
        }
        if let idRange {
            conditions.append("id BETWEEN ? AND ?")
            values.append(.integer(idRange.lowerBound))
            values.append(.integer(idRange.upperBound))
        }
        if unreadOnly { conditions.append("read_at IS NULL") }
        if let text {
            conditions.append("intrapush_contains(?, ?, title, body, payload)")
            values.append(.text(text.needle))
            values.append(.integer(text.ignoresCase ? 1 : 0))
        }
        let sql = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        return (sql, values)
    }

    /// The whole SELECT of `NotificationRecord.selectColumns`.
    func selectSQL() -> (sql: String, values: [SQLValue]) {
        var (sql, values) = filter()
        sql = "SELECT \(NotificationRecord.selectColumns) FROM notifications" + sql
        let limitClause = limit.map { " LIMIT \($0)" } ?? ""
        switch order {
        case .newestFirst:
            sql += " ORDER BY id DESC" + limitClause
        case .oldestFirst:
            sql += " ORDER BY id" + limitClause
        case .newestFirstReversed:
            sql = "SELECT * FROM (" + sql + " ORDER BY id DESC" + limitClause + ") ORDER BY id"
        }
        return (sql, values)
    }
}

/// A `--grep` text: a plain substring, case-insensitive (ASCII letters) unless it has an uppercase
/// letter — journalctl's "smart case".
package struct TextMatch: Sendable, Equatable {
    package let needle: String
    package let ignoresCase: Bool

    package init(_ needle: String) {
        self.needle = needle
        ignoresCase = !needle.unicodeScalars.contains { $0.properties.isUppercase }
    }
}

/// A value bound to a placeholder.
enum SQLValue: Sendable, Equatable {
    case integer(Int64)
    case text(String)
}

extension Statement {
    func bind(_ values: [SQLValue]) throws {
        for (offset, value) in values.enumerated() {
            switch value {
            case .integer(let number): try bind(number, at: offset + 1)
            case .text(let text): try bind(text, at: offset + 1)
            }
        }
    }
}
