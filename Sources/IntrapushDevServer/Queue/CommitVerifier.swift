// SPDX-License-Identifier: Apache-2.0

import CSQLite
import Logging

/// Checks, through its own read-only SQLite connection, that an acknowledged push is committed
/// (`notifications`), or that a message from the client was committed before it was sent (`outbox`).
///
/// The database is opened lazily and reopened after a failure, because the daemon under test may
/// create it only after the server has started.
final class CommitVerifier {
    private let path: String
    private let table: String
    private let logger: Logger
    private var database: OpaquePointer?
    private var statement: OpaquePointer?

    init(path: String, table: String = "notifications", logger: Logger) {
        self.path = path
        self.table = table
        self.logger = logger
    }

    deinit {
        close()
    }

    /// Whether `notifications` holds a row with this message id, as another connection sees it now.
    ///
    /// Anything that prevents the lookup counts as "not committed": the test should then fail loudly.
    func isCommitted(messageID: String) -> Bool {
        guard let statement = preparedStatement() else { return false }
        defer {
            // Resetting ends the read transaction, so the next lookup sees newer commits.
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        let result = messageID.withCString { text in
            sqlite3_bind_text(statement, 1, text, -1, nil)
            return sqlite3_step(statement)
        }
        switch result {
        case SQLITE_ROW:
            return true
        case SQLITE_DONE:
            return false
        default:
            logger.warning("verify-database lookup failed: \(lastErrorMessage())")
            close()
            return false
        }
    }

    private func preparedStatement() -> OpaquePointer? {
        if let statement { return statement }
        if database == nil {
            var handle: OpaquePointer?
            guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else {
                logger.warning("verify-database cannot open \(path): \(String(cString: sqlite3_errmsg(handle)))")
                sqlite3_close(handle)
                return nil
            }
            sqlite3_busy_timeout(handle, 5_000)
            database = handle
        }
        // A reply to a request is stored in the request's outbox row, not as a notification; a
        // database made before the outbox has only notifications.
        let candidates = table == "notifications"
            ? ["SELECT 1 FROM notifications WHERE message_id = ?1 UNION ALL SELECT 1 FROM outbox WHERE message_id = ?1 AND state = 'replied' LIMIT 1",
               "SELECT 1 FROM notifications WHERE message_id = ?1 LIMIT 1"]
            : ["SELECT 1 FROM \(table) WHERE message_id = ?1 LIMIT 1"]
        for sql in candidates where statement == nil {
            if sqlite3_prepare_v2(database, sql, -1, &statement, nil) != SQLITE_OK { statement = nil }
        }
        guard statement != nil else {
            logger.warning("verify-database cannot query \(path): \(lastErrorMessage())")
            close()
            return nil
        }
        return statement
    }

    private func lastErrorMessage() -> String {
        database.map { String(cString: sqlite3_errmsg($0)) } ?? "no connection"
    }

    private func close() {
        sqlite3_finalize(statement)
        sqlite3_close(database)
        statement = nil
        database = nil
    }
}
