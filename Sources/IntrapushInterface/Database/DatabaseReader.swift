// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif
import IntrapushStore

/// Read-only access to the daemon's database, for every program beside it: the CLI, and the
/// daemon's own metrics, which read the figures `intrapush status` shows.
///
/// Opens the file with `SQLITE_OPEN_READONLY`: a WAL reader never blocks the daemon's writes, and
/// the daemon never blocks it. Each query runs in its own read transaction, so it sees everything
/// committed before it started. Not thread-safe, like the connection it wraps.
package final class DatabaseReader {
    package let path: String
    package let connection: SQLiteConnection
    /// Opened as an immutable file because no daemon had it open: it will not see what a daemon
    /// started later writes, so a long-running reader opens the file again on the next change.
    package let isImmutable: Bool

    /// Opens `path` read-only and checks that this build understands its schema.
    ///
    /// - Throws: `DatabaseError` when the file cannot be opened or is not a database;
    ///   `SchemaVersionError` when a newer intrapush wrote it; `UninitializedDatabaseError` when no
    ///   daemon has created the tables yet.
    package init(path: String, busyTimeout: Duration = .milliseconds(2000)) throws {
        self.path = path
        var connection = try SQLiteConnection(path: path, mode: .readOnly, busyTimeout: busyTimeout)
        var version: Int
        var isImmutable = false
        do {
            version = try Schema.migrator.checkVersion(of: connection)
        } catch let error as DatabaseError where (error.isReadOnly || error.isCannotOpen) && Self.isIdle(path) {
            // A WAL reader needs the -shm file, and creating it needs write access to the
            // directory, which a member of the intrapush group lacks once the daemon has stopped
            // and removed its -wal and -shm. Then every commit is in the main file and no one
            // writes it: reading it as immutable is exact.
            connection = try SQLiteConnection(path: path, mode: .readOnlyImmutable, busyTimeout: busyTimeout)
            version = try Schema.migrator.checkVersion(of: connection)
            isImmutable = true
        }
        self.connection = connection
        self.isImmutable = isImmutable
        guard version >= 1 else { throw UninitializedDatabaseError(path: path) }
        try connection.registerFunctions()
    }

    /// No `-wal` file: no writer has the database open, and the main file holds every commit.
    private static func isIdle(_ path: String) -> Bool {
        access(path + "-wal", F_OK) != 0 && errno == ENOENT
    }

    /// All notifications.
    package func countAll() throws -> Int64 {
        try integer("SELECT count(*) FROM notifications")
    }

    /// The number of unread notifications, in time proportional to the SMALLER of the read and the
    /// unread sets: `count(*)` of the whole table is cheap (SQLite counts b-tree cells without
    /// reading rows), so when few are unread they are counted, and when few are read,
    /// unread = all − read.
    ///
    /// - Parameter total: the number of rows, when the caller has counted them already.
    package func countUnread(ofTotal total: Int64? = nil) throws -> Int64 {
        let total = try total ?? countAll()
        let half = total / 2
        let read = try integer(
            "SELECT count(*) FROM (SELECT 1 FROM notifications WHERE read_at IS NOT NULL LIMIT \(half + 1))")
        if read <= half { return total - read }
        return try integer("SELECT count(*) FROM notifications WHERE read_at IS NULL")
    }

    /// The highest id stored, 0 when the table is empty.
    package func latestID() throws -> Int64 {
        try integer("SELECT coalesce(max(id), 0) FROM notifications")
    }

    /// The daemon's live state; `nil` when no daemon has written it yet.
    package func liveState() throws -> LiveState? {
        try LiveState.read(from: connection)
    }

    /// How many messages wait for delivery, and when the oldest was queued.
    package func outboxBacklog() throws -> (waiting: Int64, oldestQueuedAt: Int64?) {
        guard try hasOutbox() else { return (0, nil) }
        let statement = try connection.prepare(
            "SELECT count(*), min(queued_at) FROM outbox WHERE state IN ('queued', 'sent')")
        _ = try statement.step()
        return (statement.int64(at: 0), statement.optionalInt64(at: 1))
    }

    /// A database an older daemon made has no outbox: nothing waits.
    package func hasOutbox() throws -> Bool {
        try schemaVersion() >= 4
    }

    /// The file's schema now: a daemon may migrate it while a reader has it open.
    package func schemaVersion() throws -> Int {
        try Schema.migrator.checkVersion(of: connection)
    }

    private func integer(_ sql: String) throws -> Int64 {
        let statement = try connection.prepare(sql)
        try statement.step()
        return statement.int64(at: 0)
    }
}
