// SPDX-License-Identifier: Apache-2.0

import IntrapushSupport

/// Marks notifications read (`intrapush mark-read`), and queues a read receipt for each one that
/// has a message id when `read_receipt_text` is set, in the same transaction.
///
/// Runs in the daemon (on its store connection, for the CLI's request through the local API)
/// or, when no daemon runs, in the CLI on a read-write connection of its own: one short
/// `BEGIN IMMEDIATE` transaction either way. An earlier `read_at` is kept: the first time
/// something was read is the useful one.
package final class NotificationMarker {
    let connection: SQLiteConnection
    private lazy var outbox = OutboxTable(connection: connection)
    /// The first outbox row of the receipts queued since `forgetReceiptRows`.
    package private(set) var firstReceiptRow: Int64?
    /// Prepared once for the marker's life: the daemon's marks reuse them slice after slice.
    private lazy var insertMark = Result {
        try connection.prepare(
            "INSERT INTO notification_reads (notification_id, reader, read_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING", persistent: true)
    }
    private lazy var setFirstRead = Result {
        try connection.prepare("UPDATE notifications SET read_at = ? WHERE id = ? AND read_at IS NULL", persistent: true)
    }

    /// Statements whose text names the viewer, prepared once per text: the daemon's marks reuse
    /// them slice after slice. A host has few people marking at once; past `maximumPrepared`
    /// texts the cache starts again.
    private var prepared: [String: Statement] = [:]
    private static let maximumPrepared = 32

    package init(connection: SQLiteConnection) {
        self.connection = connection
    }

    /// The statement of `sql`, prepared on first use.
    func statement(_ sql: String) throws -> Statement {
        if let statement = prepared[sql] { return statement }
        if prepared.count >= Self.maximumPrepared { prepared = [:] }
        let statement = try connection.prepare(sql, persistent: true)
        prepared[sql] = statement
        return statement
    }

    /// What `markRead(ids:at:receipts:)` did.
    package struct Outcome: Sendable, Equatable {
        /// Notifications marked read for the viewer now.
        package var marked: Int
        /// Requested ids the viewer had read already.
        package var alreadyRead: Int
        /// Requested ids that do not exist or the viewer may not see, in the order given.
        package var missing: [Int64]
        /// Read receipts queued for the server.
        package var receipts: Int

        package init(marked: Int = 0, alreadyRead: Int = 0, missing: [Int64] = [], receipts: Int = 0) {
            self.marked = marked
            self.alreadyRead = alreadyRead
            self.missing = missing
            self.receipts = receipts
        }
    }

    /// Marks each of `ids` read for `viewer`: a row in `notification_reads`, and `read_at`
    /// when it is the first mark of anyone. An id the viewer may not see counts as missing, as
    /// one that does not exist: nobody learns of another person's notification by its id.
    package func markRead(ids: [Int64], for viewer: Viewer, at now: Int64, receipts: ReadReceiptTemplate? = nil) throws -> Outcome {
        try connection.transaction { try markInTransaction(ids: ids, for: viewer, at: now, receipts: receipts) }
    }

    /// Marks every notification that is unread for `viewer` read for them, in one transaction
    /// (the CLI's, writing without a daemon; the daemon marks all in parts, `mark(_:at:)`).
    package func markAllRead(for viewer: Viewer, at now: Int64, receipts: ReadReceiptTemplate? = nil) throws -> Outcome {
        var conditions = [viewer.unreadCondition(schemaVersion: Schema.latestVersion)]
        var values: [SQLValue] = []
        if let visibility = viewer.visibility(schemaVersion: Schema.latestVersion) {
            conditions.append(visibility.sql)
            values = visibility.values
        }
        let unread = try connection.prepare(
            "SELECT id, message_id FROM notifications WHERE " + conditions.joined(separator: " AND "))
        return try connection.transaction {
            var found: [(Int64, String?)] = []
            try unread.bind(values)
            while try unread.step() { found.append((unread.int64(at: 0), unread.string(at: 1))) }
            unread.reset()
            return try markFound(found, for: viewer, at: now, receipts: receipts)
        }
    }

    /// `markRead(ids:…)` inside the caller's transaction.
    func markInTransaction(ids: [Int64], for viewer: Viewer, at now: Int64, receipts: ReadReceiptTemplate?) throws -> Outcome {
        let visibility = viewer.visibility(schemaVersion: Schema.latestVersion)
        let visible = try statement(
            "SELECT message_id, " + viewer.unreadCondition(schemaVersion: Schema.latestVersion)
                + " FROM notifications WHERE id = ?" + (visibility.map { " AND " + $0.sql } ?? ""))
        var outcome = Outcome()
        for id in ids {
            defer { visible.reset() }
            try visible.bind([.integer(id)] + (visibility?.values ?? []))
            guard try visible.step() else {
                outcome.missing.append(id)
                continue
            }
            guard visible.int64(at: 1) == 1 else {
                outcome.alreadyRead += 1
                continue
            }
            let messageID = visible.string(at: 0)
            try mark(id, for: viewer, at: now)
            outcome.marked += 1
            if let receipts, let messageID {
                outcome.receipts += try queueReceipt(receipts, messageID: messageID, reader: viewer, readAt: now)
            }
        }
        return outcome
    }

    /// Marks `found` (ids unread for `viewer`, with their message ids) read, inside the caller's
    /// transaction.
    func markFound(_ found: [(Int64, String?)], for viewer: Viewer, at now: Int64, receipts: ReadReceiptTemplate?) throws -> Outcome {
        var outcome = Outcome()
        for (id, messageID) in found {
            try mark(id, for: viewer, at: now)
            outcome.marked += 1
            if let receipts, let messageID {
                outcome.receipts += try queueReceipt(receipts, messageID: messageID, reader: viewer, readAt: now)
            }
        }
        return outcome
    }

    /// The viewer's mark, and `read_at` when it is the first of anyone's.
    private func mark(_ id: Int64, for viewer: Viewer, at now: Int64) throws {
        let insertMark = try insertMark.get()
        defer { insertMark.reset() }
        try insertMark.bind([.integer(id), .integer(viewer.userID), .integer(now)])
        try insertMark.step()
        let setFirstRead = try setFirstRead.get()
        defer { setFirstRead.reset() }
        try setFirstRead.bind([.integer(now), .integer(id)])
        try setFirstRead.step()
    }

    package func forgetReceiptRows() {
        firstReceiptRow = nil
    }

    /// 1 when queued; 0 when the same receipt still waits (its id came from the template).
    private func queueReceipt(_ template: ReadReceiptTemplate, messageID: String, reader: Viewer, readAt: Int64) throws -> Int {
        let submission = OutboxSubmission(
            message: try template.receipt(messageID: messageID, user: reader.userName ?? String(reader.userID), readAt: readAt),
            kind: .readReceipt,
            expiresAt: template.timeToLive.map { readAt + $0 })
        switch try outbox.enqueue(submission, at: readAt) {
        case .success(let row):
            if firstReceiptRow == nil { firstReceiptRow = row }
            return 1
        case .failure(.duplicate): return 0
        case .failure(let refusal): throw refusal
        }
    }
}

/// `read_receipt_text` with what a receipt needs around it.
package struct ReadReceiptTemplate: Sendable, Equatable {
    /// A JSON object text with `{message_id}`, `{read_at}` and, optionally, `{user}` in it.
    package var text: String
    package var idField: String
    package var maximumSize: Int
    /// `outbox_ttl` in milliseconds; `nil`: never expires.
    package var timeToLive: Int64?

    package init(text: String, idField: String, maximumSize: Int, timeToLive: Int64?) {
        self.text = text
        self.idField = idField
        self.maximumSize = maximumSize
        self.timeToLive = timeToLive
    }

    /// The receipt for one notification read by one person: `{message_id}` and `{user}` (the
    /// reader's user name) as the content of a JSON string (escaped), `{read_at}` as Unix
    /// milliseconds.
    package func receipt(messageID: String, user: String, readAt: Int64) throws(OutboxRefusal) -> OutboxMessage {
        let text = self.text.replacing("{message_id}", with: JSONText.escaped(messageID))
            .replacing("{user}", with: JSONText.escaped(user))
            .replacing("{read_at}", with: String(readAt))
        return try OutboxMessage.prepare(text, idField: idField, maximumSize: maximumSize)
    }
}
