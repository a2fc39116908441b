// SPDX-License-Identifier: Apache-2.0

import TestSupport
import Testing

@testable import IntrapushStore

@Suite("SQLiteConnection")
struct SQLiteConnectionTests {
    /// Every bindable type comes back unchanged, including text with a NUL and empty values.
    @Test("typed binds read back exactly")
    func bindsRoundTrip() throws {
        let directory = try TemporaryDirectory("store")
        let connection = try SQLiteConnection(path: directory.file())
        try connection.execute("CREATE TABLE t (i INTEGER, s TEXT, b BLOB, n TEXT)")
        let insert = try connection.prepare("INSERT INTO t VALUES (?, ?, ?, ?)")
        try insert.bind(Int64.min, at: 1)
        try insert.bind("Ü é\u{0}tail 🚀", at: 2)
        try insert.bind([0, 255, 1] as [UInt8], at: 3)
        try insert.bind(nil as String?, at: 4)
        #expect(try insert.step() == false)
        insert.reset()
        try insert.bind(0, at: 1)
        try insert.bind("", at: 2)
        try insert.bind([] as [UInt8], at: 3)
        try insert.bind("x", at: 4)
        try insert.step()

        let select = try connection.prepare("SELECT i, s, b, n, typeof(s), typeof(b) FROM t ORDER BY rowid")
        #expect(try select.step())
        #expect(select.int64(at: 0) == Int64.min)
        #expect(select.string(at: 1) == "Ü é\u{0}tail 🚀")
        #expect(select.blob(at: 2) == [0, 255, 1])
        #expect(select.string(at: 3) == nil)
        #expect(select.isNull(at: 3))
        #expect(try select.step())
        #expect(select.string(at: 1) == "")
        #expect(select.blob(at: 2) == [])
        #expect(select.string(at: 4) == "text")
        #expect(select.string(at: 5) == "blob")
        #expect(try select.step() == false)
    }

    /// A throwing body leaves no trace and the connection can start the next transaction.
    @Test("transaction rolls back when its body throws")
    func transactionRollsBack() throws {
        struct Expected: Error {}
        let directory = try TemporaryDirectory("store")
        let connection = try SQLiteConnection(path: directory.file())
        try connection.execute("CREATE TABLE t (v INTEGER)")
        #expect(throws: Expected.self) {
            try connection.transaction {
                try connection.execute("INSERT INTO t VALUES (1)")
                throw Expected()
            }
        }
        #expect(connection.isInTransaction == false)
        let value = try connection.transaction {
            try connection.execute("INSERT INTO t VALUES (2)")
            return 42
        }
        #expect(value == 42)
        #expect(try connection.column("SELECT v FROM t") == ["2"])
    }

    /// The description names code, symbol, message and SQL on one line.
    @Test("errors describe the code, the message and the SQL")
    func errorDescription() throws {
        let directory = try TemporaryDirectory("store")
        let connection = try SQLiteConnection(path: directory.file())
        let error = #expect(throws: DatabaseError.self) {
            try connection.execute("SELEC\n   1")
        }
        #expect(error?.resultCode == 1)
        #expect(error?.description == "SQLite error 1 (SQLITE_ERROR): near \"SELEC\": syntax error — while executing: SELEC 1")

        let full = DatabaseError(extendedResultCode: 13, sql: "INSERT INTO t VALUES (?)")
        #expect(full.isDiskFull)
        #expect(full.description == "SQLite error 13 (SQLITE_FULL): database or disk is full — while executing: INSERT INTO t VALUES (?)")
    }

    /// A read-only connection reads but refuses to write.
    @Test("read-only connections cannot write")
    func readOnly() throws {
        let directory = try TemporaryDirectory("store")
        try SQLiteConnection(path: directory.file()).execute("CREATE TABLE t (v INTEGER)")
        let reader = try SQLiteConnection(path: directory.file(), mode: .readOnly)
        #expect(try reader.integer("SELECT count(*) FROM t") == 0)
        let error = #expect(throws: DatabaseError.self) { try reader.execute("INSERT INTO t VALUES (1)") }
        #expect(error?.isReadOnly == true)
    }

    /// While another connection holds the write lock, BEGIN IMMEDIATE gives up after the busy timeout.
    @Test("a held write lock fails with SQLITE_BUSY after the busy timeout")
    func busyTimeout() throws {
        let directory = try TemporaryDirectory("store")
        let holder = try SQLiteConnection(path: directory.file())
        try holder.execute("CREATE TABLE t (v INTEGER); BEGIN IMMEDIATE; INSERT INTO t VALUES (1)")
        let waiter = try SQLiteConnection(path: directory.file(), busyTimeout: .milliseconds(50))
        let error = #expect(throws: DatabaseError.self) {
            try waiter.transaction { try waiter.execute("INSERT INTO t VALUES (2)") }
        }
        #expect(error?.isBusy == true)
        try holder.execute("COMMIT")
        try waiter.transaction { try waiter.execute("INSERT INTO t VALUES (2)") }
        #expect(try waiter.integer("SELECT count(*) FROM t") == 2)
    }

    @Test("user_version reads back what was set")
    func userVersion() throws {
        let directory = try TemporaryDirectory("store")
        let connection = try SQLiteConnection(path: directory.file())
        #expect(try connection.userVersion() == 0)
        try connection.setUserVersion(3)
        #expect(try SQLiteConnection(path: directory.file()).userVersion() == 3)
    }
}
