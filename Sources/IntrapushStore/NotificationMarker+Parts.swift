// SPDX-License-Identifier: Apache-2.0

/// A part of a mark made by the daemon for a caller of its local API, committed with the parts
/// of other marks in one transaction (one sync for many marks): some of the ids a caller named,
/// or the next of the notifications unread for the caller (a mark of all of them, in parts, so
/// that none holds the push loop for long).
package struct MarkPart: Sendable, Equatable {
    package enum Work: Sendable, Equatable {
        /// These ids (`NotificationMarker.markRead(ids:…)`'s rules).
        case ids([Int64])
        /// Those unread for the viewer among the next `limit` rows after the id `after`, up to
        /// `upTo` (nil: the newest now, which the result names: the same bound for every part).
        /// The rows examined are bounded, not the rows marked: a part over rows read long ago
        /// takes no longer than one over unread ones.
        case unread(after: Int64, upTo: Int64?, limit: Int)
    }

    /// What a part did.
    package struct Result: Sendable, Equatable {
        package var outcome: NotificationMarker.Outcome
        /// `.unread`: the last id examined (or `after` when none), the bound, and whether no
        /// row is left up to it.
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
        var wanted = viewer.unreadCondition(schemaVersion: Schema.latestVersion)
        var values: [SQLValue] = []
        if let visibility = viewer.visibility(schemaVersion: Schema.latestVersion) {
            wanted += " AND " + visibility.sql
            values = visibility.values
        }
        // Through the primary key, `limit` rows at most, each asked whether it is wanted.
        let next = try statement(
            "SELECT id, message_id, " + wanted + " FROM notifications WHERE id > ? AND id <= ? ORDER BY id LIMIT ?")
        try next.bind(values + [.integer(after), .integer(bound), .integer(Int64(limit))])
        var found: [(Int64, String?)] = []
        var (examined, lastID) = (0, after)
        do {
            defer { next.reset() }
            while try next.step() {
                examined += 1
                lastID = next.int64(at: 0)
                if next.int64(at: 2) == 1 { found.append((lastID, next.string(at: 1))) }
            }
        }
        let outcome = try markFound(found, for: viewer, at: now, receipts: receipts)
        return MarkPart.Result(outcome: outcome, lastID: lastID, upTo: bound, isExhausted: examined < limit)
    }

    private func newestID() throws -> Int64 {
        let newest = try connection.prepare("SELECT coalesce(max(id), 0) FROM notifications")
        defer { newest.reset() }
        _ = try newest.step()
        return newest.int64(at: 0)
    }
}
