// SPDX-License-Identifier: Apache-2.0

/// The `outbox` table's statements, on one connection: the daemon's writer (its push loop), or the CLI
/// queueing directly while no daemon runs. Every method runs inside the caller's transaction
/// (or its own autocommit) and does no I/O besides SQLite.
package final class OutboxTable {
    let connection: SQLiteConnection
    private lazy var insert = prepare("""
        INSERT INTO outbox (message_id, kind, payload, state, queued_at, expires_at)
        VALUES (?, ?, ?, 'queued', ?, ?)
        """)
    private lazy var selectUndelivered = prepare("""
        SELECT id, message_id, kind, payload, expires_at FROM outbox
        WHERE state IN ('queued', 'sent') AND id > ? AND id < ? ORDER BY id LIMIT ?
        """)
    private lazy var updateSent = prepare("""
        UPDATE outbox SET state = 'sent', attempts = attempts + 1, sent_at = ?
        WHERE id = ? AND state IN ('queued', 'sent')
        """)
    private lazy var updateDelivered = prepare("""
        UPDATE outbox SET state = 'delivered', delivered_at = ?,
            attempts = attempts + (state = 'queued'), sent_at = coalesce(sent_at, ?1)
        WHERE id = ? AND state IN ('queued', 'sent')
        """)
    private lazy var updateReplied = prepare("""
        UPDATE outbox SET state = 'replied', reply = ?, replied_at = ?2, delivered_at = coalesce(delivered_at, ?2)
        WHERE id = ? AND kind = 'request' AND state <> 'replied'
        """)
    private lazy var updateExpired = prepare("""
        UPDATE outbox SET state = 'expired', expired_at = ?1
        WHERE expires_at IS NOT NULL AND expires_at <= ?1
          AND (state IN ('queued', 'sent') OR (kind = 'request' AND state = 'delivered'))
        RETURNING id, message_id
        """)
    private lazy var selectNextExpiry = prepare("""
        SELECT min(expires_at) FROM outbox
        WHERE expires_at IS NOT NULL
          AND (state IN ('queued', 'sent') OR (kind = 'request' AND state = 'delivered'))
        """)
    private lazy var selectAwaitedReplies = prepare("""
        SELECT message_id, id FROM outbox WHERE kind = 'request' AND state IN ('queued', 'sent', 'delivered')
        """)

    package init(connection: SQLiteConnection) {
        self.connection = connection
    }

    /// Inserts one message as `queued`; a message id that still waits is refused.
    package func enqueue(_ submission: OutboxSubmission, at now: Int64) throws -> Result<Int64, OutboxRefusal> {
        let statement = try insert.get()
        defer { statement.reset() }
        try statement.bind(submission.message.id, at: 1)
        try statement.bind(submission.kind.rawValue, at: 2)
        try statement.bind(submission.message.text, at: 3)
        try statement.bind(now, at: 4)
        try statement.bind(submission.expiresAt, at: 5)
        do {
            _ = try statement.step()
        } catch let error as DatabaseError where error.isUniqueViolation {
            // Only the statement is undone; the caller's transaction goes on with the next one.
            return .failure(.duplicate(id: submission.message.id))
        }
        return .success(connection.lastInsertedRowID)
    }

    /// What still waits for delivery, in queue order, after `rowID`.
    package func undelivered(after rowID: Int64, before bound: Int64 = .max, limit: Int) throws -> [OutboxEntry] {
        let statement = try selectUndelivered.get()
        defer { statement.reset() }
        try statement.bind(rowID, at: 1)
        try statement.bind(bound, at: 2)
        try statement.bind(Int64(limit), at: 3)
        var entries: [OutboxEntry] = []
        while try statement.step() {
            entries.append(OutboxEntry(
                rowID: statement.int64(at: 0), messageID: statement.string(at: 1) ?? "",
                kind: OutboxKind(rawValue: statement.string(at: 2) ?? "") ?? .message,
                text: statement.string(at: 3) ?? "", expiresAt: statement.optionalInt64(at: 4)))
        }
        return entries
    }

    /// Written to a connection (once more): `sent`, one attempt more.
    package func markSent(_ rowIDs: [Int64], at now: Int64) throws {
        try update(updateSent, rowIDs: rowIDs, at: now)
    }

    /// Acknowledged by the server, or written when the server does not acknowledge.
    package func markDelivered(_ rowIDs: [Int64], at now: Int64) throws {
        try update(updateDelivered, rowIDs: rowIDs, at: now)
    }

    /// Stores a request's reply; `false` when the row already had one (a redelivered reply).
    package func storeReply(rowID: Int64, reply: String, at now: Int64) throws -> Bool {
        let statement = try updateReplied.get()
        defer { statement.reset() }
        try statement.bind(reply, at: 1)
        try statement.bind(now, at: 2)
        try statement.bind(rowID, at: 3)
        _ = try statement.step()
        return connection.changes == 1
    }

    /// Marks everything whose deadline passed `expired`; returns those rows.
    package func expireDue(at now: Int64) throws -> [AwaitedReply] {
        let statement = try updateExpired.get()
        defer { statement.reset() }
        try statement.bind(now, at: 1)
        var expired: [AwaitedReply] = []
        while try statement.step() {
            expired.append(AwaitedReply(messageID: statement.string(at: 1) ?? "", rowID: statement.int64(at: 0)))
        }
        return expired
    }

    /// The earliest deadline of anything still waiting; `nil` when none has one.
    package func nextExpiry() throws -> Int64? {
        let statement = try selectNextExpiry.get()
        defer { statement.reset() }
        _ = try statement.step()
        return statement.optionalInt64(at: 0)
    }

    /// Requests still waiting for a reply (queued, sent or delivered).
    package func awaitedReplies() throws -> [AwaitedReply] {
        let statement = try selectAwaitedReplies.get()
        defer { statement.reset() }
        var awaited: [AwaitedReply] = []
        while try statement.step() {
            awaited.append(AwaitedReply(messageID: statement.string(at: 0) ?? "", rowID: statement.int64(at: 1)))
        }
        return awaited
    }

    private func update(_ prepared: Result<Statement, any Error>, rowIDs: [Int64], at now: Int64) throws {
        let statement = try prepared.get()
        for rowID in rowIDs {
            defer { statement.reset() }
            try statement.bind(now, at: 1)
            try statement.bind(rowID, at: 2)
            _ = try statement.step()
        }
    }

    private func prepare(_ sql: String) -> Result<Statement, any Error> {
        Result { try connection.prepare(sql, persistent: true) }
    }
}
