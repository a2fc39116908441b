// SPDX-License-Identifier: Apache-2.0

import CIntrapushSearch
import CSQLite
import IntrapushSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One connection to an SQLite database file, over the system `libsqlite3`.
///
/// Not thread-safe and not `Sendable`: it is opened with `SQLITE_OPEN_NOMUTEX`, so every use must
/// come from the one thread (or serial executor) that owns it. Extended result codes are on, so
/// errors carry codes such as `SQLITE_IOERR_FSYNC`. The connection closes when released.
package final class SQLiteConnection {
    /// How to open the file.
    package enum Mode: Sendable {
        /// Read and write; create the file when it does not exist (never its directory).
        case readWriteCreate
        /// Read and write an existing file.
        case readWrite
        /// Read only; the file must exist.
        case readOnly
        /// Read only, promising SQLite that no one writes the file meanwhile (`immutable=1`): no
        /// locks and no `-shm`, so it works in a directory the reader cannot write to.
        case readOnlyImmutable
    }

    /// The path the connection was opened with.
    package let path: String
    let db: OpaquePointer
    /// Keeps the WAL hook's handler alive as long as SQLite may call it.
    var walHook: WALHook?
    /// Keeps the progress handler's check alive likewise.
    var interruptCheck: InterruptCheck?
    private lazy var beginStatement = try? prepare("BEGIN IMMEDIATE", persistent: true)
    private lazy var commitStatement = try? prepare("COMMIT", persistent: true)
    private lazy var rollbackStatement = try? prepare("ROLLBACK", persistent: true)

    /// Opens the database at `path`.
    ///
    /// - Parameter busyTimeout: how long a statement waits for another connection's lock before
    ///   failing with `SQLITE_BUSY`.
    /// - Throws: `DatabaseError` naming the path, e.g. when its directory does not exist.
    package init(path: String, mode: Mode = .readWriteCreate, busyTimeout: Duration = .milliseconds(5000)) throws {
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        switch mode {
        case .readWriteCreate: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        case .readWrite: flags |= SQLITE_OPEN_READWRITE
        case .readOnly, .readOnlyImmutable: flags |= SQLITE_OPEN_READONLY
        }
        var name = path
        if mode == .readOnlyImmutable {
            flags |= SQLITE_OPEN_URI
            name = "file:" + SQLiteConnection.uriEscaped(path) + "?immutable=1"
        }
        _ = SQLiteConnection.libraryConfigured
        if mode == .readWriteCreate { SQLiteConnection.createIfMissing(path) }
        var handle: OpaquePointer?
        let code = sqlite3_open_v2(name, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            throw SQLiteConnection.openError(code: code, handle: handle, path: path)
        }
        self.path = path
        self.db = handle
        sqlite3_extended_result_codes(handle, 1)
        try setBusyTimeout(busyTimeout)
    }

    deinit {
        // close_v2 defers the close until statements still alive elsewhere are finalized.
        sqlite3_close_v2(db)
    }

    /// The mode a new database is created with: its group reads it (the CLI's users), nobody
    /// else. SQLite gives its `-wal` and `-shm` files the database's own mode, so all three
    /// are 0640 whatever the umask of whoever started the daemon.
    package static let newDatabaseMode: mode_t = 0o640

    /// Creates an empty database file with `newDatabaseMode` (exactly: `fchmod` after the
    /// umask), never through a link; SQLite then finds it and writes the schema into it. Its name
    /// is made durable (the directory synced): SQLite syncs the journals it creates, not that.
    static func createIfMissing(_ path: String) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, newDatabaseMode)
        guard descriptor >= 0 else { return }  // it exists (or cannot be made: SQLite says why)
        fchmod(descriptor, newDatabaseMode)
        fsync(descriptor)
        close(descriptor)
        try? DurableFile.syncDirectory(DurableFile.directory(of: path))
    }

    /// Runs once, before the first open (a static is initialised lazily and exactly once).
    private static let libraryConfigured: Void = { _ = intrapush_configure_sqlite() }()

    /// Frees the page cache's unused pages (the pages stay in the file and the OS cache).
    package func releaseMemory() {
        sqlite3_db_release_memory(db)
    }

    /// Bytes the page cache holds now (`SQLITE_DBSTATUS_CACHE_USED`).
    var pageCacheBytes: Int {
        var current: Int32 = 0
        var highest: Int32 = 0
        sqlite3_db_status(db, SQLITE_DBSTATUS_CACHE_USED, &current, &highest, 0)
        return Int(current)
    }

    /// Runs one or more SQL statements that return no rows of interest.
    package func execute(_ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
            throw DatabaseError(connection: db, sql: sql)
        }
    }

    /// Compiles one SQL statement.
    ///
    /// - Parameter persistent: a hint that the statement will be kept and reused for a long time.
    package func prepare(_ sql: String, persistent: Bool = false) throws -> Statement {
        let flags = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        // The tail points into the C string, which lives only inside withCString.
        let (code, handle, hasTail) = sql.withCString { text -> (Int32, OpaquePointer?, Bool) in
            var handle: OpaquePointer?
            var tail: UnsafePointer<CChar>?
            let code = sqlite3_prepare_v3(db, text, -1, flags, &handle, &tail)
            let hasTail = tail.map { tail in
                String(cString: tail).contains { !$0.isWhitespace }
            } ?? false
            return (code, handle, hasTail)
        }
        guard code == SQLITE_OK else {
            throw DatabaseError(connection: db, sql: sql)
        }
        guard let handle else {
            throw DatabaseError(extendedResultCode: SQLITE_MISUSE, message: "no SQL statement to prepare", sql: sql)
        }
        let statement = Statement(handle: handle, db: db, sql: sql)
        if hasTail {
            throw DatabaseError(extendedResultCode: SQLITE_MISUSE, message: "prepare takes a single statement", sql: sql)
        }
        return statement
    }

    /// Runs `body` inside `BEGIN IMMEDIATE` … `COMMIT`; rolls back and rethrows when anything fails,
    /// the commit included. `IMMEDIATE` takes the write lock up front, so a busy database fails at
    /// `BEGIN` (after the busy timeout) instead of halfway through.
    package func transaction<Result>(_ body: () throws -> Result) throws -> Result {
        try run(beginStatement, orExecute: "BEGIN IMMEDIATE")
        do {
            let result = try body()
            try run(commitStatement, orExecute: "COMMIT")
            return result
        } catch {
            rollback()
            throw error
        }
    }

    /// `true` while a transaction is open.
    package var isInTransaction: Bool { sqlite3_get_autocommit(db) == 0 }

    /// Rows changed by the most recent INSERT, UPDATE or DELETE, not counting triggers.
    package var changes: Int { Int(sqlite3_changes(db)) }

    /// The rowid of the most recent successful INSERT.
    package var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(db) }

    /// `PRAGMA user_version`: the schema version.
    package func userVersion() throws -> Int {
        let statement = try prepare("PRAGMA user_version")
        try statement.step()
        return Int(statement.int64(at: 0))
    }

    package func setUserVersion(_ version: Int) throws {
        // PRAGMA values cannot be bound; an Int interpolates safely.
        try execute("PRAGMA user_version = \(version)")
    }

    /// Makes intrapush's SQL functions available: `intrapush_contains(needle, ignore_case, text, …)`.
    package func registerFunctions() throws {
        guard intrapush_register_functions(db) == SQLITE_OK else {
            throw DatabaseError(connection: db, sql: nil)
        }
    }

    /// Runs a statement and returns the first column of its first row as text, `nil` when none.
    package func text(_ sql: String) throws -> String? {
        let statement = try prepare(sql)
        return try statement.step() ? statement.string(at: 0) : nil
    }

    /// A path as a URI path: the characters URIs give a meaning to, percent-encoded.
    private static func uriEscaped(_ path: String) -> String {
        var escaped = ""
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "%"), UInt8(ascii: "?"), UInt8(ascii: "#"), 0..<0x20, 0x7F...:
                let hex = String(byte, radix: 16, uppercase: true)
                escaped += "%" + (hex.count == 1 ? "0" + hex : hex)
            default:
                escaped.unicodeScalars.append(Unicode.Scalar(byte))
            }
        }
        return escaped
    }

    private func setBusyTimeout(_ timeout: Duration) throws {
        let (seconds, attoseconds) = timeout.components
        let milliseconds = min(seconds * 1000 + attoseconds / 1_000_000_000_000_000, Int64(Int32.max))
        guard sqlite3_busy_timeout(db, Int32(max(0, milliseconds))) == SQLITE_OK else {
            throw DatabaseError(connection: db, sql: nil)
        }
    }

    private func run(_ statement: Statement?, orExecute sql: String) throws {
        guard let statement else { return try execute(sql) }
        defer { statement.reset() }
        try statement.step()
    }

    private func rollback() {
        // SQLite rolls back by itself after some errors (SQLITE_FULL, SQLITE_IOERR, …);
        // a second ROLLBACK would only fail.
        guard isInTransaction else { return }
        try? run(rollbackStatement, orExecute: "ROLLBACK")
    }

    private static func openError(code: Int32, handle: OpaquePointer?, path: String) -> DatabaseError {
        defer { sqlite3_close_v2(handle) }
        guard let handle else { return DatabaseError(extendedResultCode: code, sql: nil) }
        var message = "\(String(cString: sqlite3_errmsg(handle))) \(path)"
        let systemError = sqlite3_system_errno(handle)
        if systemError != 0 {
            message += ": \(String(cString: strerror(systemError)))"
        }
        return DatabaseError(extendedResultCode: sqlite3_extended_errcode(handle), message: message, sql: nil)
    }
}
