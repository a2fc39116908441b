// SPDX-License-Identifier: Apache-2.0

import CSQLite

/// A prepared SQLite statement: bind parameters, step through rows, reset, reuse.
///
/// Confined to the thread of the `SQLiteConnection` that prepared it. Parameter and column
/// indices follow SQLite: parameters count from 1, columns from 0. The statement is finalized
/// when it is released; it may outlive its connection object, because the connection closes with
/// `sqlite3_close_v2`, which waits for the last statement.
package final class Statement {
    /// The SQL text, with its placeholders; never contains bound values.
    package let sql: String
    private let handle: OpaquePointer
    private let db: OpaquePointer

    // sqlite3.h defines SQLITE_TRANSIENT as a cast macro, which Swift does not import.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    init(handle: OpaquePointer, db: OpaquePointer, sql: String) {
        self.handle = handle
        self.db = db
        self.sql = sql
    }

    deinit {
        sqlite3_finalize(handle)
    }

    // MARK: Binding

    package func bind(_ value: Int64, at index: Int) throws {
        try check(sqlite3_bind_int64(handle, Int32(index), value))
    }

    /// Binds `value` as TEXT (its exact UTF-8 bytes, embedded NULs included).
    package func bind(_ value: String, at index: Int) throws {
        var value = value
        let code = value.withUTF8 { bytes -> Int32 in
            // A nil base address would bind NULL instead of the empty string.
            guard let base = bytes.baseAddress, !bytes.isEmpty else {
                return sqlite3_bind_text(handle, Int32(index), "", 0, Statement.transient)
            }
            return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                sqlite3_bind_text64(handle, Int32(index), $0, UInt64(bytes.count), Statement.transient, UInt8(SQLITE_UTF8))
            }
        }
        try check(code)
    }

    /// Binds `value` as a BLOB.
    package func bind(_ value: [UInt8], at index: Int) throws {
        let code = value.withUnsafeBytes { bytes -> Int32 in
            // A nil base address would bind NULL instead of the empty blob.
            guard let base = bytes.baseAddress, !bytes.isEmpty else {
                return sqlite3_bind_zeroblob(handle, Int32(index), 0)
            }
            return sqlite3_bind_blob64(handle, Int32(index), base, UInt64(bytes.count), Statement.transient)
        }
        try check(code)
    }

    package func bindNull(at index: Int) throws {
        try check(sqlite3_bind_null(handle, Int32(index)))
    }

    package func bind(_ value: Int64?, at index: Int) throws {
        if let value { try bind(value, at: index) } else { try bindNull(at: index) }
    }

    package func bind(_ value: String?, at index: Int) throws {
        if let value { try bind(value, at: index) } else { try bindNull(at: index) }
    }

    /// Sets every parameter back to NULL.
    package func clearBindings() {
        sqlite3_clear_bindings(handle)
    }

    // MARK: Stepping

    /// Runs the statement to its next row.
    ///
    /// - Returns: `true` when a row is ready to read, `false` when the statement is done.
    @discardableResult
    package func step() throws -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw DatabaseError(connection: db, sql: sql)
        }
    }

    /// Makes the statement ready to run again; bindings are kept.
    package func reset() {
        // The code it returns repeats the last step's error, which step() already threw.
        sqlite3_reset(handle)
    }

    // MARK: Reading columns of the current row

    package enum ColumnType: Sendable, Equatable {
        case integer, float, text, blob, null
    }

    package var columnCount: Int { Int(sqlite3_column_count(handle)) }

    package func columnType(at index: Int) -> ColumnType {
        switch sqlite3_column_type(handle, Int32(index)) {
        case SQLITE_INTEGER: return .integer
        case SQLITE_FLOAT: return .float
        case SQLITE_TEXT: return .text
        case SQLITE_BLOB: return .blob
        default: return .null
        }
    }

    package func isNull(at index: Int) -> Bool {
        columnType(at: index) == .null
    }

    /// The column as an integer; NULL reads as 0, as in SQLite.
    package func int64(at index: Int) -> Int64 {
        sqlite3_column_int64(handle, Int32(index))
    }

    package func optionalInt64(at index: Int) -> Int64? {
        isNull(at: index) ? nil : int64(at: index)
    }

    /// The column as text (a BLOB is decoded as UTF-8); `nil` for NULL.
    package func string(at index: Int) -> String? {
        guard !isNull(at: index), let text = sqlite3_column_text(handle, Int32(index)) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, Int32(index)))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// The column's bytes; `nil` for NULL.
    package func blob(at index: Int) -> [UInt8]? {
        guard !isNull(at: index) else { return nil }
        // sqlite3_column_blob first, so that sqlite3_column_bytes measures the same conversion.
        let bytes = sqlite3_column_blob(handle, Int32(index))
        let count = Int(sqlite3_column_bytes(handle, Int32(index)))
        guard count > 0, let bytes else { return [] }
        return Array(UnsafeRawBufferPointer(start: bytes, count: count))
    }

    private func check(_ code: Int32) throws {
        guard code == SQLITE_OK else { throw DatabaseError(connection: db, sql: sql) }
    }
}
