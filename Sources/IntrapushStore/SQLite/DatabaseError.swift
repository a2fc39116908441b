// SPDX-License-Identifier: Apache-2.0

import CSQLite

/// An error reported by SQLite, with the codes, SQLite's message and the SQL that failed.
///
/// Modelled on GRDB's `DatabaseError`. The description fits on one log line and never contains
/// bound values, only the statement text with its `?` placeholders:
/// `SQLite error 13 (SQLITE_FULL): database or disk is full — while executing: INSERT INTO …`.
package struct DatabaseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The extended result code (`SQLITE_IOERR_FSYNC`, `SQLITE_CONSTRAINT_UNIQUE`, …).
    package let extendedResultCode: Int32
    /// What SQLite (or this wrapper) said went wrong.
    package let message: String
    /// The statement that failed, when there was one.
    package let sql: String?

    /// The primary result code: the least significant 8 bits of the extended one.
    package var resultCode: Int32 { extendedResultCode & 0xFF }

    package init(extendedResultCode: Int32, message: String? = nil, sql: String? = nil) {
        self.extendedResultCode = extendedResultCode
        self.message = message ?? String(cString: sqlite3_errstr(extendedResultCode))
        self.sql = sql
    }

    /// The error the connection `db` reports right now, as the outcome of `sql`.
    init(connection db: OpaquePointer, sql: String?) {
        self.init(
            extendedResultCode: sqlite3_extended_errcode(db),
            message: String(cString: sqlite3_errmsg(db)),
            sql: sql
        )
    }

    package var description: String {
        var text = "SQLite error \(resultCode)"
        if let name = DatabaseError.primaryCodeNames[resultCode] {
            text += " (\(name))"
        }
        text += ": \(message)"
        if let sql {
            text += " — while executing: \(DatabaseError.singleLine(sql))"
        }
        return text
    }

    /// The disk (or the file-size limit) is full: nothing more can be written until space is freed.
    package var isDiskFull: Bool { resultCode == SQLITE_FULL }
    /// Another connection held a lock for longer than the busy timeout.
    package var isBusy: Bool { resultCode == SQLITE_BUSY || resultCode == SQLITE_LOCKED }
    /// The database file (or its directory) could not be opened or created.
    package var isCannotOpen: Bool { resultCode == SQLITE_CANTOPEN }
    /// The file is not writable, or the connection was opened read-only.
    package var isReadOnly: Bool { resultCode == SQLITE_READONLY }
    /// The file is damaged or is not an SQLite database.
    package var isCorrupt: Bool { resultCode == SQLITE_CORRUPT || resultCode == SQLITE_NOTADB }
    /// A constraint (`UNIQUE`, `NOT NULL`, `CHECK`, a trigger's `RAISE`) rejected the change.
    package var isConstraintViolation: Bool { resultCode == SQLITE_CONSTRAINT }
    /// A UNIQUE (or primary key) index refused the row; a trigger's RAISE is another constraint code.
    package var isUniqueViolation: Bool {
        // SQLITE_CONSTRAINT_UNIQUE and _PRIMARYKEY: macros Swift does not import.
        extendedResultCode == SQLITE_CONSTRAINT | (8 << 8) || extendedResultCode == SQLITE_CONSTRAINT | (6 << 8)
    }
    /// A low-level I/O failure (read, write, fsync, …).
    package var isIOError: Bool { resultCode == SQLITE_IOERR }

    // Multi-line SQL literals would otherwise break the one-line-per-event log format.
    private static func singleLine(_ sql: String) -> String {
        sql.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" })
            .joined(separator: " ")
    }

    // sqlite3 has no API for the symbolic names; these are the primary codes from sqlite3.h.
    private static let primaryCodeNames: [Int32: String] = [
        1: "SQLITE_ERROR", 2: "SQLITE_INTERNAL", 3: "SQLITE_PERM", 4: "SQLITE_ABORT",
        5: "SQLITE_BUSY", 6: "SQLITE_LOCKED", 7: "SQLITE_NOMEM", 8: "SQLITE_READONLY",
        9: "SQLITE_INTERRUPT", 10: "SQLITE_IOERR", 11: "SQLITE_CORRUPT", 12: "SQLITE_NOTFOUND",
        13: "SQLITE_FULL", 14: "SQLITE_CANTOPEN", 15: "SQLITE_PROTOCOL", 16: "SQLITE_EMPTY",
        17: "SQLITE_SCHEMA", 18: "SQLITE_TOOBIG", 19: "SQLITE_CONSTRAINT", 20: "SQLITE_MISMATCH",
        21: "SQLITE_MISUSE", 22: "SQLITE_NOLFS", 23: "SQLITE_AUTH", 24: "SQLITE_FORMAT",
        25: "SQLITE_RANGE", 26: "SQLITE_NOTADB", 27: "SQLITE_NOTICE", 28: "SQLITE_WARNING",
    ]
}
