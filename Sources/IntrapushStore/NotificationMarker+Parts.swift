/// A part of a mark made by the daemon for a caller of its local API, committed with the parts
/// of other marks in one transaction (one sync for many marks): some of the ids a caller named,
/// or the next of the notifications unread for the caller (a mark of all of them, in parts, so
/// that none holds the push loop for long).
package struct MarkPart: Sendable, Equatable {
    package enum Work: Sendable, Equatable {
        /// These ids (`NotificationMarker.markRead(ids:…)`'s rules).
        case ids([Int64])
        /// At most `limit` of those unread for the viewer, after the id `after` and up to
        /// `upTo` (nil: the newest now, which the result names: the same bound for every part).
        case unread(after: Int64, upTo: Int64?, limit: Int)
    }

    /// What a part did.
    package struct Result: Sendable, Equatable {
        package var outcome: NotificationMarker.Outcome
        /// `.unread`: the last id marked (or `after` when none), the bound, and whether no
        /// unread one is left up to it.
        package var lastID: Int64
        package var upTo: Int64?
        package var isExhausted: Bool

        package init(outcome: NotificationMarker.Outcome, lastID: Int64 = 0, upTo: Int64? = nil, isExhausted: Bool = true) {
            self.outcome = outcome
            self.lastID = lastID
            self.upTo = upTo
            self.isExhausted = isExhausted
        }
    }

    package var viewer: Viewer
    package var receipts: ReadReceiptTemplate?
    package var work: Work

    package init(viewer: Viewer, receipts: ReadReceiptTemplate?, work: Work) {
        self.viewer = viewer
        self.receipts = receipts
        self.work = work
    }
}

extension NotificationMarker {
    /// Commits `parts` in one transaction, each as its own mark; a failure rolls all back.
    package func mark(_ parts: [MarkPart], at now: Int64) throws -> [MarkPart.Result] {
        try connection.transaction {
            try parts.map { part in
                switch part.work {
                case .ids(let ids):
                    return MarkPart.Result(outcome: try markInTransaction(ids: ids, for: part.viewer, at: now, receipts: part.receipts))
                case .unread(let after, let upTo, let limit):
                    return try markUnread(after: after, upTo: upTo, limit: limit, for: part.viewer, at: now, receipts: part.receipts)
                }
            }
        }
    }

    private func markUnread(
        after: Int64, upTo: Int64?, limit: Int, for viewer: Viewer, at now: Int64, receipts: ReadReceiptTemplate?
    ) throws -> MarkPart.Result {
        let bound = try upTo ?? newestID()
        var conditions = [viewer.unreadCondition(schemaVersion: Schema.latestVersion), "id > ?", "id <= ?"]
        var values: [SQLValue] = [.integer(after), .integer(bound)]
        if let visibility = viewer.visibility(schemaVersion: Schema.latestVersion) {
            conditions.append(visibility.sql)
            values += visibility.values
        }
        let unread = try statement(
            "SELECT id, message_id FROM notifications WHERE " + conditions.joined(separator: " AND ") + " ORDER BY id LIMIT ?")
        try unread.bind(values + [.integer(Int64(limit))])
        var found: [(Int64, String?)] = []
        do {
            defer { unread.reset() }
            while try unread.step() { found.append((unread.int64(at: 0), unread.string(at: 1))) }
        }
        let outcome = try markFound(found, for: viewer, at: now, receipts: receipts)
        return MarkPart.Result(outcome: outcome, lastID: found.last?.0 ?? after, upTo: bound, isExhausted: found.count < limit)
    }

    private func newestID() throws -> Int64 {
        let newest = try connection.prepare("SELECT coalesce(max(id), 0) FROM notifications")
        defer { newest.reset() }
        _ = try newest.step()
        return newest.int64(at: 0)
    }
}
