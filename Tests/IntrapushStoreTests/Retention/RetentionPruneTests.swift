// SPDX-License-Identifier: Apache-2.0

import TestSupport
import Testing

@testable import IntrapushStore

@Suite("Retention: pruning")
struct RetentionPruneTests {
    typealias Fixture = RetentionFixture

    /// Rows older than retention_days go, in bounded batches, oldest first; newer rows stay.
    @Test("prunes by age in batches no larger than the batch size")
    func byAge() throws {
        let fixture = try Fixture()
        try fixture.insert(60, ageDays: 100)
        try fixture.insert(40, ageDays: 10)
        let batches = try fixture.prunePass(RetentionPolicy(days: 90, maximumRows: 0), batchSize: 25)
        #expect(batches.map(\.deletedByAge) == [25, 25, 10, 0])
        #expect(batches.allSatisfy { $0.deletedByCount == 0 })
        #expect(try fixture.count() == 40)
        #expect(try fixture.ids().first == 61)
        let cutoff = Fixture.now - 90 * Fixture.day
        #expect(try fixture.store.connection.integer("SELECT min(received_at) FROM notifications") >= cutoff)
    }

    /// Beyond retention_max_rows the lowest ids go, exactly down to the limit.
    @Test("prunes by count down to exactly the limit, lowest ids first")
    func byCount() throws {
        let fixture = try Fixture()
        try fixture.insert(100, ageDays: 1)
        let batches = try fixture.prunePass(RetentionPolicy(days: 90, maximumRows: 30), batchSize: 20)
        #expect(batches.map(\.deletedByCount) == [0, 20, 20, 20, 10])
        #expect(batches.allSatisfy { $0.deleted <= 20 })
        #expect(try fixture.ids() == Array(71...100))
    }

    /// Age first, then count: the two limits together.
    @Test("prunes by age and count in one pass")
    func both() throws {
        let fixture = try Fixture()
        try fixture.insert(50, ageDays: 200)
        try fixture.insert(50, ageDays: 2)
        var pass = PruneProgress()
        for batch in try fixture.prunePass(RetentionPolicy(days: 90, maximumRows: 30), batchSize: 1000) {
            pass.add(batch)
        }
        #expect(pass.deletedByAge == 50)
        #expect(pass.deletedByCount == 20)
        #expect(pass.isComplete)
        #expect(pass.description
            == "pruned 70 notifications (50 older than the retention period, 20 beyond the row limit) in 2 batches")
        #expect(try fixture.ids() == Array(71...100))
    }

    /// Holes in the ids (rows deleted by hand) do not make the count phase delete too much.
    @Test("the count limit stays exact when ids have gaps")
    func gaps() throws {
        let fixture = try Fixture()
        try fixture.insert(100, ageDays: 1)
        try fixture.store.connection.execute("DELETE FROM notifications WHERE id BETWEEN 80 AND 89")
        _ = try fixture.prunePass(RetentionPolicy(days: 0, maximumRows: 50), batchSize: 7)
        #expect(try fixture.count() == 50)
        #expect(try fixture.ids().last == 100)
    }

    /// `0` lifts a limit; with both at 0 nothing is read or written.
    @Test("a policy that keeps everything deletes and writes nothing")
    func keepsEverything() throws {
        let fixture = try Fixture()
        try fixture.insert(10, ageDays: 1000)
        let batches = try fixture.prunePass(RetentionPolicy(days: 0, maximumRows: 0), batchSize: 5)
        #expect(batches == [PruneProgress(isComplete: true)])
        #expect(try fixture.count() == 10)
        #expect(try fixture.store.readLiveState()?.lastPruneAt == nil)
    }

    /// `status` gets the prune time and a total that a later live-state write does not reset.
    @Test("pruning records its time and total, and live-state writes keep them")
    func recordsInDaemonState() throws {
        let fixture = try Fixture()
        try fixture.insert(30, ageDays: 100)
        _ = try fixture.prunePass(RetentionPolicy(days: 90, maximumRows: 0), batchSize: 8)
        try fixture.insert(5, ageDays: 100)
        _ = try fixture.prunePass(RetentionPolicy(days: 90, maximumRows: 0), batchSize: 8)
        var state = try #require(try fixture.store.readLiveState())
        #expect(state.prunedTotal == 35)
        #expect(state.lastPruneAt == Fixture.now)
        state.prunedTotal = 0
        state.lastPruneAt = nil
        state.hookRuns = 3
        try fixture.store.writeLiveState(state)
        let reread = try #require(try fixture.store.readLiveState())
        #expect(reread.prunedTotal == 35)
        #expect(reread.lastPruneAt == Fixture.now)
        #expect(reread.hookRuns == 3)
    }

    /// A batch must cost the same on a million rows as on a hundred: no statement of a batch
    /// reads the whole table (the one count per pass is the documented exception).
    @Test("batch statements search an index or the primary key, never scan")
    func queryPlans() throws {
        let fixture = try Fixture()
        for sql in [RetentionPruner.deleteByAgeSQL, RetentionPruner.deleteUpToIDSQL, RetentionPruner.idSpanSQL] {
            let statement = try fixture.store.connection.prepare("EXPLAIN QUERY PLAN " + sql)
            var plan: [String] = []
            while try statement.step() { plan.append(statement.string(at: 3) ?? "") }
            #expect(!plan.isEmpty)
            #expect(!plan.contains { $0.hasPrefix("SCAN notifications") }, "\(sql): \(plan)")
        }
    }

    /// The text the daemon logs and `status` shows for a policy.
    @Test("policy descriptions and age cutoff")
    func policy() {
        #expect(RetentionPolicy(days: 90, maximumRows: 1_000_000).description == "90 days, at most 1000000 rows")
        #expect(RetentionPolicy(days: 1, maximumRows: 0).description == "1 day")
        #expect(RetentionPolicy(days: 0, maximumRows: 5).description == "at most 5 rows")
        #expect(RetentionPolicy(days: 0, maximumRows: 0).description == "kept forever")
        #expect(RetentionPolicy(days: 2, maximumRows: 0).ageCutoff(now: 3 * Fixture.day) == Fixture.day)
        #expect(RetentionPolicy(days: 0, maximumRows: 9).ageCutoff(now: 1) == nil)
        #expect(RetentionPolicy(days: Int.max, maximumRows: 0).ageCutoff(now: 1) == nil)
    }
}
