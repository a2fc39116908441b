import IntrapushStore
/// Marks notifications read: the CLI's only write (`intrapush mark-read`).
///
/// Opens the existing file read-write (never creates it) and writes in one short `BEGIN IMMEDIATE`
/// transaction, so the daemon waits at most for that one update (its `busy_timeout` covers it).
/// An earlier `read_at` is kept: the first time something was read is the useful one.
package final class NotificationMarker {
    let connection: SQLiteConnection

    /// - Throws: `DatabaseError` (e.g. `isReadOnly`/`isCannotOpen` without write permission),
    ///   `SchemaVersionError`, `UninitializedDatabaseError`.
    package init(path: String, busyTimeout: Duration = .milliseconds(5000)) throws {
        connection = try SQLiteConnection(path: path, mode: .readWrite, busyTimeout: busyTimeout)
        guard try Schema.migrator.checkVersion(of: connection) >= 1 else {
            throw UninitializedDatabaseError(path: path)
        }
    }

    /// What `markRead(ids:at:)` did.
    package struct Outcome: Sendable, Equatable {
        /// Rows whose `read_at` was set now.
        package var marked: Int
        /// Requested ids that exist but were already read.
        package var alreadyRead: Int
        /// Requested ids that do not exist, in the order given.
        package var missing: [Int64]
    }

    /// Sets `read_at = now` on each of `ids` that is unread.
    package func markRead(ids: [Int64], at now: Int64) throws -> Outcome {
        let update = try connection.prepare("UPDATE notifications SET read_at = ? WHERE id = ? AND read_at IS NULL")
        let exists = try connection.prepare("SELECT 1 FROM notifications WHERE id = ?")
        return try connection.transaction {
            var outcome = Outcome(marked: 0, alreadyRead: 0, missing: [])
            for id in ids {
                defer { update.reset(); exists.reset() }
                try update.bind(now, at: 1)
                try update.bind(id, at: 2)
                try update.step()
                if connection.changes == 1 {
                    outcome.marked += 1
                    continue
                }
                // Nothing changed: the id is missing, or it was read already.
                try exists.bind(id, at: 1)
                if try exists.step() { outcome.alreadyRead += 1 } else { outcome.missing.append(id) }
            }
            return outcome
        }
    }

    /// Marks every unread notification read; returns how many.
    package func markAllRead(at now: Int64) throws -> Int {
        let update = try connection.prepare("UPDATE notifications SET read_at = ? WHERE read_at IS NULL")
        return try connection.transaction {
            try update.bind(now, at: 1)
            try update.step()
            return connection.changes
        }
    }
}
