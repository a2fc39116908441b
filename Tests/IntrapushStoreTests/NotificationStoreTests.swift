// SPDX-License-Identifier: Apache-2.0

import TestSupport
import Foundation
import IntrapushSupport
import Testing

@testable import IntrapushStore

@Suite("NotificationStore")
struct NotificationStoreTests {
    /// Durability settings: WAL is a property of the file, synchronous=FULL of the store's connection.
    @Test("WAL and synchronous=FULL are in force")
    func durabilitySettings() throws {
        let directory = try TemporaryDirectory("store")
        let store = try NotificationStore(path: directory.file())
        #expect(try store.connection.text("PRAGMA journal_mode") == "wal")
        #expect(try store.connection.integer("PRAGMA synchronous") == 2)
        let other = try SQLiteConnection(path: directory.file(), mode: .readOnly)
        #expect(try other.text("PRAGMA journal_mode") == "wal")
    }

    @Test("a write-ahead log that cannot be opened is named, with the reason")
    func walFileMissing() throws {
        let directory = try TemporaryDirectory("store")
        let error = #expect(throws: DurableFile.Failure.self) { try WALFile(databasePath: directory.file("none")) }
        #expect(error?.description == "cannot open \(directory.file("none"))-wal: No such file or directory")
    }

    /// Committed means visible to any other connection, e.g. the CLI or the integration tests.
    @Test("a batch is visible to a separate connection as soon as store returns")
    func visibleAfterStore() throws {
        let directory = try TemporaryDirectory("store")
        let store = try NotificationStore(path: directory.file())
        let reader = try SQLiteConnection(path: directory.file(), mode: .readOnly)
        #expect(try reader.integer("SELECT count(*) FROM notifications") == 0)
        let push = Push(payload: .text(#"{"id":"a","title":"T","body":"B"}"#), messageID: "a",
                        title: "T", body: "B", receivedAt: 1_700_000_000_123)
        let outcomes = try store.store([push, .text("plain", id: nil, at: 5)], liveState: nil)
        #expect(outcomes == [.inserted(rowID: 1), .inserted(rowID: 2)])
        let row = try reader.prepare("SELECT id, message_id, received_at, payload, title, body, read_at FROM notifications ORDER BY id")
        #expect(try row.step())
        #expect(row.int64(at: 0) == 1)
        #expect(row.string(at: 1) == "a")
        #expect(row.int64(at: 2) == 1_700_000_000_123)
        #expect(row.string(at: 3) == #"{"id":"a","title":"T","body":"B"}"#)
        #expect(row.string(at: 4) == "T")
        #expect(row.string(at: 5) == "B")
        #expect(row.isNull(at: 6))
        #expect(try row.step())
        #expect(row.isNull(at: 1))
        #expect(row.string(at: 3) == "plain")
        #expect(try row.step() == false)
    }

    /// Dedup on message_id holds across batches and inside one batch; the first copy wins.
    @Test("duplicates across batches and within a batch")
    func duplicates() throws {
        let directory = try TemporaryDirectory("store")
        let store = try NotificationStore(path: directory.file())
        #expect(try store.store([.text("first", id: "x")], liveState: nil) == [.inserted(rowID: 1)])
        let outcomes = try store.store(
            [.text("again", id: "x"), .text("new", id: "y"), .text("new again", id: "y"), .text("z", id: "z")],
            liveState: nil
        )
        #expect(outcomes == [.duplicate, .inserted(rowID: 2), .duplicate, .inserted(rowID: 3)])
        let reader = try SQLiteConnection(path: directory.file(), mode: .readOnly)
        #expect(try reader.column("SELECT payload FROM notifications ORDER BY id") == ["first", "new", "z"])
    }

    /// Pushes without an id cannot be told apart, so every one is kept.
    @Test("pushes without a message id are never duplicates")
    func nullIDs() throws {
        let directory = try TemporaryDirectory("store")
        let store = try NotificationStore(path: directory.file())
        let same = Push.text("same", id: nil)
        #expect(try store.store([same, same], liveState: nil) == [.inserted(rowID: 1), .inserted(rowID: 2)])
        #expect(try store.store([same], liveState: nil) == [.inserted(rowID: 3)])
    }

    /// `.binary` stays bytes (BLOB); `.text` is TEXT, the empty string included (not NULL).
    @Test("binary payloads are BLOBs and text payloads TEXT")
    func payloadStorageClasses() throws {
        let directory = try TemporaryDirectory("store")
        let store = try NotificationStore(path: directory.file())
        let bytes: [UInt8] = [0xFF, 0x00, 0xFE, 0x80]
        _ = try store.store([
            Push(payload: .binary(bytes), messageID: nil, title: nil, body: nil, receivedAt: 1),
            .text("héllo", id: nil),
            .text("", id: nil),
            Push(payload: .binary([]), messageID: nil, title: nil, body: nil, receivedAt: 1),
        ], liveState: nil)
        let reader = try SQLiteConnection(path: directory.file(), mode: .readOnly)
        #expect(try reader.column("SELECT typeof(payload) FROM notifications ORDER BY id")
            == ["blob", "text", "text", "blob"])
        let row = try reader.prepare("SELECT payload FROM notifications WHERE id = 1")
        try row.step()
        #expect(row.blob(at: 0) == bytes)
    }

    /// A real failure mid-batch (a trigger rejecting one push) rolls back the whole batch and
    /// its live state; the store then works, and holds no lock.
    @Test("a failing batch stores nothing and the store keeps working")
    func failingBatch() throws {
        let directory = try TemporaryDirectory("store")
        let store = try NotificationStore(path: directory.file())
        let saboteur = try SQLiteConnection(path: directory.file())
        try saboteur.execute("""
            CREATE TRIGGER reject_marker BEFORE INSERT ON notifications
            WHEN NEW.payload = 'MARKER-7f3a'
            BEGIN SELECT RAISE(ABORT, 'rejected by test trigger'); END
            """)
        let state = LiveState(state: .connected, receivedTotal: 3, updatedAt: 10)
        let error = #expect(throws: DatabaseError.self) {
            _ = try store.store([.text("ok-1", id: "1"), .text("MARKER-7f3a", id: "2"), .text("ok-3", id: "3")],
                                liveState: state)
        }
        #expect(error?.isConstraintViolation == true)
        #expect(error?.description.contains("rejected by test trigger") == true)
        #expect(error?.description.contains("INSERT INTO notifications") == true)
        #expect(error?.description.contains("MARKER-7f3a") == false)
        #expect(try saboteur.integer("SELECT count(*) FROM notifications") == 0)
        #expect(try store.readLiveState() == nil)
        #expect(store.connection.isInTransaction == false)

        // The other connection can take the write lock: the failed batch released it.
        try saboteur.transaction { try saboteur.execute("DELETE FROM daemon_state") }
        #expect(try store.store([.text("ok-1", id: "1")], liveState: state) == [.inserted(rowID: 1)])
        #expect(try store.readLiveState() == state)
        #expect(try saboteur.integer("SELECT count(*) FROM notifications") == 1)
    }

    /// The single live-state row round-trips every field and is replaced, not duplicated.
    @Test("live state round-trips and stays one row")
    func liveStateRoundTrip() throws {
        let directory = try TemporaryDirectory("store")
        let store = try NotificationStore(path: directory.file())
        #expect(try store.readLiveState() == nil)
        let full = LiveState(
            pid: 4242, state: .reconnecting, server: "ws://push.corp:8080/connect/linux/acme/***",
            connectedSince: 1, lastHeartbeatAt: 2, lastPushAt: 3, reconnectAttempt: 4, nextAttemptAt: 5,
            lastError: "connection refused", receivedTotal: 6, storedTotal: 7, duplicateTotal: 8,
            ackedTotal: 9, connectionsTotal: 10, startedAt: 11, updatedAt: 12
        )
        try store.writeLiveState(full)
        #expect(try store.readLiveState() == full)
        let sparse = LiveState(state: .connected, updatedAt: 13)
        _ = try store.store([.text("p", id: nil)], liveState: sparse)
        #expect(try store.readLiveState() == sparse)
        let reader = try SQLiteConnection(path: directory.file(), mode: .readOnly)
        #expect(try LiveState.read(from: reader) == sparse)
        #expect(try reader.integer("SELECT count(*) FROM daemon_state") == 1)
    }

    /// The daemon counts duplicates from the outcomes and writes the counters in the batch's commit.
    @Test("live state computed from the outcomes is written in the same transaction")
    func liveStateFromOutcomes() throws {
        let directory = try TemporaryDirectory("store")
        let store = try NotificationStore(path: directory.file())
        var seen: [StoreOutcome] = []
        let outcomes = try store.store([.text("a", id: "1"), .text("a", id: "1")]) { outcomes in
            seen = outcomes
            let duplicates = Int64(outcomes.filter { $0 == .duplicate }.count)
            return LiveState(state: .connected, duplicateTotal: duplicates, updatedAt: 1)
        }
        #expect(seen == outcomes)
        #expect(outcomes == [.inserted(rowID: 1), .duplicate])
        let reader = try SQLiteConnection(path: directory.file(), mode: .readOnly)
        #expect(try LiveState.read(from: reader)?.duplicateTotal == 1)
    }

    /// The daemon turns this into exit 74, so the message must name the path and the cause.
    @Test("a missing parent directory fails with a clear error and is not created")
    func missingDirectory() throws {
        let directory = try TemporaryDirectory("store")
        let path = directory.path + "/absent/notifications.sqlite3"
        let error = #expect(throws: DatabaseError.self) { _ = try NotificationStore(path: path) }
        #expect(error?.isCannotOpen == true)
        #expect(error?.description.contains(path) == true)
        #expect(error?.description.contains("No such file or directory") == true)
        #expect(FileManager.default.fileExists(atPath: directory.path + "/absent") == false)
    }
}
