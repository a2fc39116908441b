// SPDX-License-Identifier: Apache-2.0

import TestSupport
import Testing

@testable import IntrapushStore

@Suite("Migrator and Schema")
struct MigratorTests {
    struct Column: Equatable, CustomStringConvertible {
        let name: String, type: String, notNull: Bool, primaryKey: Bool
        var description: String { "\(name) \(type)\(notNull ? " NOT NULL" : "")\(primaryKey ? " PK" : "")" }
    }

    private func columns(of table: String, in connection: SQLiteConnection) throws -> [Column] {
        let statement = try connection.prepare("PRAGMA table_info(\(table))")
        var columns: [Column] = []
        while try statement.step() {
            columns.append(Column(
                name: statement.string(at: 1) ?? "", type: statement.string(at: 2) ?? "",
                notNull: statement.int64(at: 3) != 0, primaryKey: statement.int64(at: 5) != 0
            ))
        }
        return columns
    }

    /// The public `notifications` table has exactly the contract's seven columns.
    @Test("migrations create the contract's notifications table and set user_version")
    func freshDatabase() throws {
        let directory = try TemporaryDirectory("store")
        _ = try NotificationStore(path: directory.file())
        let connection = try SQLiteConnection(path: directory.file(), mode: .readOnly)
        #expect(try connection.userVersion() == Schema.latestVersion)
        #expect(Schema.latestVersion == 7)
        #expect(try columns(of: "outbox", in: connection).map(\.name) == [
            "id", "message_id", "kind", "payload", "state", "queued_at", "expires_at", "attempts", "sent_at",
            "delivered_at", "reply", "replied_at", "expired_at",
        ])
        #expect(try columns(of: "notifications", in: connection) == [
            Column(name: "id", type: "INTEGER", notNull: false, primaryKey: true),
            Column(name: "message_id", type: "TEXT", notNull: false, primaryKey: false),
            Column(name: "received_at", type: "INTEGER", notNull: true, primaryKey: false),
            Column(name: "payload", type: "TEXT", notNull: true, primaryKey: false),
            Column(name: "title", type: "TEXT", notNull: false, primaryKey: false),
            Column(name: "body", type: "TEXT", notNull: false, primaryKey: false),
            Column(name: "read_at", type: "INTEGER", notNull: false, primaryKey: false),
            Column(name: "priority", type: "INTEGER", notNull: false, primaryKey: false),
            Column(name: "link", type: "TEXT", notNull: false, primaryKey: false),
            Column(name: "recipients", type: "TEXT", notNull: false, primaryKey: false),
        ])
        #expect(try connection.column(
            "SELECT \"unique\" FROM pragma_index_list('notifications') WHERE origin = 'u'") == ["1"])
        #expect(try connection.column(
            "SELECT name FROM pragma_index_info('notifications_received_at')") == ["received_at"])
        #expect(try connection.column(
            "SELECT name FROM sqlite_schema WHERE type = 'index' AND sql LIKE '%WHERE read_at%' ORDER BY name")
            == ["notifications_read", "notifications_unread"])
        #expect(try columns(of: "daemon_state", in: connection).map(\.name) == [
            "id", "pid", "state", "server", "connected_since", "last_heartbeat_at", "last_push_at",
            "reconnect_attempt", "next_attempt_at", "last_error", "received_total", "stored_total",
            "duplicate_total", "acked_total", "connections_total", "started_at", "updated_at",
            "retention_days", "retention_max_rows", "last_prune_at", "pruned_total",
            "hook_runs", "hook_failures", "hook_timeouts", "hook_dropped",
        ])
    }

    /// A second open finds the schema current and applies nothing; data survives.
    @Test("reopening does not run migrations again")
    func reopening() throws {
        let directory = try TemporaryDirectory("store")
        let first = try NotificationStore(path: directory.file())
        _ = try first.store([.text("kept", id: "1")], liveState: nil)
        _ = try NotificationStore(path: directory.file())
        let connection = try SQLiteConnection(path: directory.file())
        #expect(try Schema.migrator.migrate(connection) == [])
        #expect(try connection.integer("SELECT count(*) FROM notifications") == 1)
    }

    /// Each step runs once, in order, and only the missing ones run on an older database.
    @Test("only pending steps are applied, each once")
    func pendingStepsOnly() throws {
        let directory = try TemporaryDirectory("store")
        let connection = try SQLiteConnection(path: directory.file())
        let step1 = Migration(version: 1, summary: "log", sql: "CREATE TABLE log (step INTEGER); INSERT INTO log VALUES (1)")
        let step2 = Migration(version: 2, summary: "two", sql: "INSERT INTO log VALUES (2)")
        #expect(try Migrator(migrations: [step1]).migrate(connection) == [1])
        #expect(try Migrator(migrations: [step1, step2]).migrate(connection) == [2])
        #expect(try Migrator(migrations: [step1, step2]).migrate(connection) == [])
        #expect(try connection.column("SELECT step FROM log ORDER BY rowid") == ["1", "2"])
        #expect(try connection.userVersion() == 2)
    }

    /// A failing step leaves the database at the last whole version.
    @Test("a failing step is rolled back with its version bump")
    func failingStep() throws {
        let directory = try TemporaryDirectory("store")
        let connection = try SQLiteConnection(path: directory.file())
        let migrator = Migrator(migrations: [
            Migration(version: 1, summary: "ok", sql: "CREATE TABLE a (v INTEGER)"),
            Migration(version: 2, summary: "broken", sql: "CREATE TABLE b (v INTEGER); INSERT INTO missing VALUES (1)"),
        ])
        #expect(throws: DatabaseError.self) { try migrator.migrate(connection) }
        #expect(try connection.userVersion() == 1)
        #expect(try connection.column("SELECT name FROM sqlite_schema WHERE type = 'table'") == ["a"])
    }

    /// A database from a newer intrapush is refused with a message that says what to do.
    @Test("a newer schema version is a clear error, and the file is left alone")
    func newerSchema() throws {
        let directory = try TemporaryDirectory("store")
        let newer = Schema.latestVersion + 1
        try SQLiteConnection(path: directory.file()).setUserVersion(newer)
        let error = #expect(throws: SchemaVersionError.self) {
            _ = try NotificationStore(path: directory.file())
        }
        #expect(error == SchemaVersionError(databaseVersion: newer, supportedVersion: Schema.latestVersion))
        #expect(error?.description
            == "database schema version \(newer) is newer than this intrapush understands (\(Schema.latestVersion)); upgrade intrapush")
        let connection = try SQLiteConnection(path: directory.file(), mode: .readOnly)
        #expect(try connection.userVersion() == newer)
        #expect(try connection.column("SELECT name FROM sqlite_schema") == [])
    }

    /// The CLI checks the version on a read-only connection without migrating.
    @Test("checkVersion reports a pending migration without applying it")
    func checkVersionReadOnly() throws {
        let directory = try TemporaryDirectory("store")
        try SQLiteConnection(path: directory.file()).execute("CREATE TABLE unrelated (v INTEGER)")
        let reader = try SQLiteConnection(path: directory.file(), mode: .readOnly)
        #expect(try Schema.migrator.checkVersion(of: reader) == 0)
        #expect(throws: DatabaseError.self) { try Schema.migrator.migrate(reader) }
        #expect(try reader.userVersion() == 0)
    }
}
