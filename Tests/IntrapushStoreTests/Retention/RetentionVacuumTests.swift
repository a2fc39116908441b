// SPDX-License-Identifier: Apache-2.0

import TestSupport
import Testing

@testable import IntrapushStore

@Suite("Retention: file size")
struct RetentionVacuumTests {
    typealias Fixture = RetentionFixture

    /// New databases are created with incremental auto-vacuum, and say nothing to the log.
    @Test("a new database has auto_vacuum = INCREMENTAL")
    func newDatabaseIsIncremental() throws {
        let fixture = try Fixture()
        #expect(try fixture.store.autoVacuum() == .incremental)
        #expect(AutoVacuum.incremental.notice(databasePath: fixture.path) == nil)
    }

    /// Insert, prune, reclaim, again and again: the file stays the same size.
    @Test("the file does not grow across insert and prune cycles")
    func stableAcrossCycles() throws {
        let fixture = try Fixture()
        var pageCounts: [Int64] = []
        for _ in 0..<6 {
            try fixture.insert(2000, ageDays: 1, payloadBytes: 300)
            _ = try fixture.prunePass(RetentionPolicy(days: 0, maximumRows: 1000), batchSize: 500)
            while try fixture.store.reclaimFreePages(atMost: 64) > 0 {}
            pageCounts.append(try fixture.pageCount())
        }
        #expect(try fixture.count() == 1000)
        let settled = pageCounts.dropFirst()
        #expect(settled.max()! <= pageCounts[0] + 4, "page counts \(pageCounts)")
    }

    /// Each step gives back at most the pages asked for, and the free list goes to zero.
    @Test("reclaimFreePages shrinks the free list and the file step by step")
    func reclaimSteps() throws {
        let fixture = try Fixture()
        try fixture.insert(3000, ageDays: 1, payloadBytes: 300)
        let before = try fixture.pageCount()
        _ = try fixture.prunePass(RetentionPolicy(days: 0, maximumRows: 100), batchSize: 1000)
        var free = try fixture.store.freePageCount()
        #expect(free > 100)
        var steps = 0
        while free > 0 {
            let left = try fixture.store.reclaimFreePages(atMost: 50)
            #expect(left < free)
            #expect(free - left <= 50)
            free = left
            steps += 1
        }
        #expect(steps >= 3)
        #expect(try fixture.pageCount() < before / 4)
    }

    /// A file created before incremental vacuum keeps its mode (no VACUUM at start); the log
    /// says so, nothing is reclaimed, and freed pages are reused so the file stops growing.
    @Test("an older database without auto_vacuum reuses pages and says so")
    func olderDatabase() throws {
        let directory = try TemporaryDirectory("store")
        let path = directory.file()
        do {
            let connection = try SQLiteConnection(path: path)
            try connection.execute("PRAGMA journal_mode = WAL")
            try Migrator(migrations: Array(Schema.migrations.prefix(2))).migrate(connection)
        }
        let store = try NotificationStore(path: path)
        #expect(try store.autoVacuum() == .none)
        #expect(AutoVacuum.none.notice(databasePath: path) == "the database \(path) was created without "
            + "incremental vacuum: pruned space is reused for new notifications, but the file does not "
            + "shrink; to convert it once, stop intrapushd and run: sqlite3 \(path) "
            + "'PRAGMA auto_vacuum = INCREMENTAL; VACUUM'")
        var pageCounts: [Int64] = []
        var nextID = 0
        for _ in 0..<5 {
            let pushes = (0..<2000).map { _ -> Push in
                nextID += 1
                return .text(String(repeating: "y", count: 300), id: "o\(nextID)", at: RetentionFixture.now)
            }
            _ = try store.store(pushes, liveState: nil)
            var progress: PruneProgress
            repeat {
                progress = try store.pruneBatch(
                    policy: RetentionPolicy(days: 0, maximumRows: 1000), now: RetentionFixture.now, batchSize: 500)
            } while !progress.isComplete
            #expect(try store.reclaimFreePages() == 0)
            pageCounts.append(try store.connection.integer("PRAGMA page_count"))
        }
        #expect(pageCounts.dropFirst(2).max()! <= pageCounts[1] + 4, "page counts \(pageCounts)")
    }
}
