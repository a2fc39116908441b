// SPDX-License-Identifier: Apache-2.0

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
    package var idRange: ClosedRange<Int64>?
    /// At least this urgent; a push that named no priority counts as normal.
    package var minimumPriority: NotificationPriority?
    /// Only those meant for this person (`--mine`).
    package var recipients: RecipientFilter?
    /// Whose eyes: what they may see, and whose read marks `unreadOnly` and `read_at` mean.
    /// `nil` for a database before per-person marks, or a reader of the first marks of anyone.
    package var viewer: Viewer?
    /// Read through this index: one that holds few rows besides the query's
    /// (`NotificationReader.narrowIndex`), which it then finds without a walk.
    package var index: NotificationIndex?

    /// The table, and the index it is read through when one is named.
    var source: String { index.map { "notifications INDEXED BY \($0.rawValue)" } ?? "notifications" }

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

    /// Its count is read from indexes and the small tables (`NotificationReader.count`), never
    /// by walking rows: it filters by nothing but unread and whose eyes. The daemon counts
    /// others in pieces on its scan lane.
    package var isCountedFromIndexes: Bool {
        since == nil && until == nil && text == nil && minimumPriority == nil && recipients == nil && idRange == nil
    }

    /// The WHERE clause (empty or starting with " WHERE") and the values for its placeholders.
    ///
    /// - Parameter schemaVersion: the file's; one older than the priority and recipients columns
    ///   holds only normal notifications meant for everyone.
    func filter(schemaVersion: Int = Schema.latestVersion) -> (sql: String, values: [SQLValue]) {
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
        if unreadOnly { conditions.append(viewer?.unreadCondition(schemaVersion: schemaVersion) ?? "read_at IS NULL") }
        if let visibility = viewer?.visibility(schemaVersion: schemaVersion) {
            conditions.append(visibility.sql)
            values += visibility.values
        }
        if let minimumPriority {
            conditions.append(schemaVersion >= 5 ? "coalesce(priority, 3) >= ?" : "3 >= ?")
            values.append(.integer(Int64(minimumPriority.rawValue)))
            // Implied by the term above; written out, as the index of the high and urgent is
            // written, so that SQLite may use that index (it does not for a bound value).
            if schemaVersion >= 7, minimumPriority >= .high { conditions.append(NotificationIndex.urgentCondition) }
        }
        if let condition = recipients?.condition(schemaVersion: schemaVersion) {
            conditions.append(condition.sql)
            values += condition.values
        }
        if let text {
            conditions.append("intrapush_contains(?, ?, title, body, payload)")
            values.append(.text(text.needle))
            values.append(.integer(text.ignoresCase ? 1 : 0))
        }
        let sql = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        return (sql, values)
    }

    /// The whole SELECT of `NotificationRecord.selectColumns`.
    func selectSQL(schemaVersion: Int = Schema.latestVersion) -> (sql: String, values: [SQLValue]) {
        var (sql, values) = filter(schemaVersion: schemaVersion)
        let readAt = viewer?.readAtExpression(schemaVersion: schemaVersion) ?? "read_at"
        sql = "SELECT \(NotificationRecord.selectColumns(schemaVersion: schemaVersion, readAt: readAt)) FROM \(source)" + sql
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

/// An index a query may be read through, by its name in the schema.
package enum NotificationIndex: String, Sendable, Equatable {
    /// By `received_at`: a time range.
    case time = "notifications_received_at"
    /// The high and urgent, by id (schema 7).
    case urgent = "notifications_urgent"

    /// The urgent index's own WHERE, word for word.
    static let urgentCondition = "priority >= 4"
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
