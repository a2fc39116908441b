// SPDX-License-Identifier: Apache-2.0

import CSQLite
import TestSupport
import Testing

@testable import IntrapushStore

/// A burst's batch committed for the daemon to sync (`WALSync.byCaller`): which of SQLite's
/// syncs it keeps, and that every write after it has SQLite's own sync again.
@Suite("NotificationStore, a batch synced by the caller")
struct NotificationStoreSyncTests {
    /// Every write after such a batch must get SQLite's own sync again, the outbox's and the
    /// live state's too.
    @Test("a batch left for the caller to sync leaves the connection at synchronous=FULL, after a failure too")
    func syncByCaller() throws {
        struct Refused: Error {}
        let directory = try TemporaryDirectory("store")
        let store = try NotificationStore(path: directory.file())
        #expect(try store.store([.text("one", id: "1", at: 1)], syncing: .byCaller) { _ in nil } == [.inserted(rowID: 1)])
        #expect(try store.connection.integer("PRAGMA synchronous") == 2)
        try store.walFile.sync()
        #expect(throws: Refused.self) {
            try store.store([.text("two", id: "2", at: 2)], syncing: .byCaller) { _ in throw Refused() }
        }
        #expect(try store.connection.integer("PRAGMA synchronous") == 2)
        #expect(try store.connection.integer("SELECT count(*) FROM notifications") == 1)
    }

    /// OFF would also skip the sync of the log's header when it starts over (and a checkpoint's
    /// syncs, were SQLite's own to run in the commit); NORMAL skips only the commit's.
    @Test("a batch left for the caller to sync is committed at synchronous=NORMAL, never OFF")
    func committedAtNormal() throws {
        let directory = try TemporaryDirectory("store")
        let store = try NotificationStore(path: directory.file())
        var levelInCommit: Int64?
        _ = try store.store([.text("one", id: "1", at: 1)], syncing: .byCaller) { _ in
            levelInCommit = try store.connection.integer("PRAGMA synchronous")
            return nil
        }
        #expect(levelInCommit == 1)
        _ = try store.store([.text("two", id: "2", at: 2)], syncing: .inCommit) { _ in
            levelInCommit = try store.connection.integer("PRAGMA synchronous")
            return nil
        }
        #expect(levelInCommit == 2)
    }

    /// The daemon answers a slice of marks once a sync began after it (`MarkSyncSchedule`): a
    /// commit counted as synced that SQLite did not sync would answer marks not on disk.
    @Test("commits are counted only when they wrote, and counted as synced only when SQLite synced them in the commit")
    func commitsCounted() throws {
        let directory = try TemporaryDirectory("store")
        let store = try NotificationStore(path: directory.file())
        var pages: [Int] = []
        store.onCommit { pages.append($0) }
        _ = try store.store([.text("one", id: "1", at: 1)], liveState: nil)
        #expect((store.commitsWritten, store.lastCommitSyncedInCommit) == (1, 1))
        _ = try store.store([.text("two", id: "2", at: 2)], syncing: .byCaller) { _ in nil }
        #expect((store.commitsWritten, store.lastCommitSyncedInCommit) == (2, 1), "committed at NORMAL: not synced")
        _ = try store.store([.text("one again", id: "1", at: 3)], liveState: nil)
        #expect((store.commitsWritten, store.lastCommitSyncedInCommit) == (2, 1), "a duplicate writes nothing: no sync")
        _ = try store.store([.text("three", id: "3", at: 4)], liveState: nil)
        #expect((store.commitsWritten, store.lastCommitSyncedInCommit) == (3, 3), "its sync carries the one before")
        #expect(pages.count == 3, "the checkpointer's handler still told of each commit")
    }

    /// The daemon stops on this (exit 74): going on would leave every later write unsynced.
    @Test("when synchronous=FULL cannot be put back after the batch, the store says so, whether the batch committed or failed")
    func levelNotRestored() throws {
        struct Refused: Error {}
        let directory = try TemporaryDirectory("store")
        let store = try NotificationStore(path: directory.file())
        let error = #expect(throws: SyncInCommitNotRestored.self) {
            try store.store([.text("one", id: "1", at: 1)], syncing: .byCaller) { _ in
                Self.refuseChangingSynchronous(store.connection)
                return nil
            }
        }
        #expect(error?.description.hasPrefix("cannot turn SQLite's sync of each commit back on") == true)
        #expect(try store.connection.integer("PRAGMA synchronous") == 1, "still without the commit's sync")
        sqlite3_set_authorizer(store.connection.db, nil, nil)
        #expect(throws: SyncInCommitNotRestored.self) {
            try store.store([.text("two", id: "2", at: 2)], syncing: .byCaller) { _ in
                Self.refuseChangingSynchronous(store.connection)
                throw Refused()
            }
        }
        #expect(try store.connection.integer("SELECT count(*) FROM notifications") == 1, "the second batch rolled back")
    }

    /// Makes every later `PRAGMA synchronous = …` on `connection` fail, as SQLite's authorizer
    /// can (reading the level stays allowed).
    static func refuseChangingSynchronous(_ connection: SQLiteConnection) {
        sqlite3_set_authorizer(connection.db, { _, action, name, value, _, _ in
            guard action == SQLITE_PRAGMA, value != nil, let name, String(cString: name) == "synchronous" else { return SQLITE_OK }
            return SQLITE_DENY
        }, nil)
    }
}
