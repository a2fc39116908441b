// SPDX-License-Identifier: Apache-2.0

/// Deletes what the retention policy no longer keeps, one small transaction per call, so that
/// the writer can interleave pruning with the pushes' commits.
///
/// A pass first deletes by age (oldest `received_at` first, through its index), then by count
/// (lowest ids first, a primary-key range). Each batch is bounded: at most `batchSize` rows,
/// found by walking an index from its start, never a scan of the table. Only the start of the
/// count phase reads the row count, and only when the id span says the table may be over the
/// limit (a count of the table, once per pass). The number to delete is fixed then:
/// rows that arrive during the pass wait for the next one.
///
/// Confined to the store's thread, like the connection it uses.
final class RetentionPruner {
    private enum Phase {
        case byAge
        case startingByCount
        case byCount(remaining: Int)
    }

    private let connection: SQLiteConnection
    private var phase = Phase.byAge
    private var policy: RetentionPolicy?

    private let deleteByAge: Statement
    private let deleteFinishedOutbox: Statement
    private let boundaryByCount: Statement
    private let deleteUpToID: Statement
    private let idSpan: Statement
    private let rowCount: Statement
    private let recordPrune: Statement

    // Each walks an index or the primary key from one end, never the whole table
    // (RetentionPruneTests checks their query plans).
    static let deleteByAgeSQL = """
        DELETE FROM notifications WHERE id IN (
            SELECT id FROM notifications WHERE received_at < ? ORDER BY received_at LIMIT ?)
        """
    /// Delivered, replied and expired messages to the server go by the same age (not by count:
    /// `retention_max_rows` counts notifications).
    static let deleteFinishedOutboxSQL = """
        DELETE FROM outbox WHERE id IN (
            SELECT id FROM outbox WHERE state IN ('delivered', 'replied', 'expired') AND queued_at < ?
            ORDER BY queued_at LIMIT ?)
        """
    static let deleteUpToIDSQL = "DELETE FROM notifications WHERE id <= ?"
    // Two subqueries: SQLite reads a lone min() or max() off the end of the b-tree, but scans
    // the table for both in one SELECT.
    static let idSpanSQL = """
        SELECT coalesce((SELECT max(id) FROM notifications) - (SELECT min(id) FROM notifications) + 1, 0)
        """

    init(connection: SQLiteConnection) throws {
        self.connection = connection
        deleteByAge = try connection.prepare(Self.deleteByAgeSQL, persistent: true)
        deleteFinishedOutbox = try connection.prepare(Self.deleteFinishedOutboxSQL, persistent: true)
        boundaryByCount = try connection.prepare(
            "SELECT id FROM notifications ORDER BY id LIMIT 1 OFFSET ?", persistent: true)
        deleteUpToID = try connection.prepare(Self.deleteUpToIDSQL, persistent: true)
        idSpan = try connection.prepare(Self.idSpanSQL, persistent: true)
        rowCount = try connection.prepare("SELECT count(*) FROM notifications", persistent: true)
        // The row normally exists (the daemon writes its state first); if not, a placeholder that
        // reads as a stopped daemon until the daemon's own write replaces every other column.
        recordPrune = try connection.prepare("""
            INSERT INTO daemon_state (id, state, updated_at, last_prune_at, pruned_total)
            VALUES (1, 'stopped', ?1, ?1, ?2)
            ON CONFLICT(id) DO UPDATE SET last_prune_at = excluded.last_prune_at,
                pruned_total = pruned_total + excluded.pruned_total
            """, persistent: true)
    }

    /// Runs one batch of the current pass (starting a pass when none is under way, or when the
    /// policy changed).
    func pruneBatch(policy: RetentionPolicy, now: Int64, batchSize: Int) throws -> PruneProgress {
        precondition(batchSize > 0, "batchSize must be positive")
        if policy != self.policy {
            self.policy = policy
            phase = .byAge
        }
        if policy.keepsEverything { return PruneProgress(isComplete: true) }
        switch phase {
        case .byAge:
            guard let cutoff = policy.ageCutoff(now: now) else {
                phase = .startingByCount
                return try pruneBatch(policy: policy, now: now, batchSize: batchSize)
            }
            var outboxDeleted = 0
            let deleted = try inTransaction(now: now) {
                outboxDeleted = try deleteOldest(deleteFinishedOutbox, before: cutoff, limit: batchSize)
                return try deleteOldest(deleteByAge, before: cutoff, limit: batchSize)
            }
            // Short batches found the last old rows: the age phase is over.
            if deleted < batchSize && outboxDeleted < batchSize { phase = .startingByCount }
            return PruneProgress(deletedByAge: deleted, batches: 1)
        case .startingByCount:
            let excess = try excessRows(maximum: policy.maximumRows)
            guard excess > 0 else { return try finish(now: now) }
            phase = .byCount(remaining: excess)
            return try pruneBatch(policy: policy, now: now, batchSize: batchSize)
        case .byCount(let remaining):
            let deleted = try inTransaction(now: now) { try deleteLowestIDs(min(remaining, batchSize)) }
            guard deleted > 0, remaining - deleted > 0 else {
                _ = try finish(now: now)
                return PruneProgress(deletedByCount: deleted, batches: 1, isComplete: true)
            }
            phase = .byCount(remaining: remaining - deleted)
            return PruneProgress(deletedByCount: deleted, batches: 1)
        }
    }

    /// Ends the pass and records its time, so that `status` shows when pruning last looked even
    /// when it found nothing to delete.
    private func finish(now: Int64) throws -> PruneProgress {
        phase = .byAge
        policy = nil
        _ = try inTransaction(now: now) { 0 }
        return PruneProgress(isComplete: true)
    }

    /// Rows beyond `maximum` now; 0 when there is no limit. Counts only when the ids spread over
    /// more than `maximum` values: ids only grow, so a narrower span cannot hold too many rows.
    private func excessRows(maximum: Int) throws -> Int {
        guard maximum > 0 else { return 0 }
        guard try single(idSpan) > Int64(maximum) else { return 0 }
        return max(0, Int(try single(rowCount)) - maximum)
    }

    private func deleteOldest(_ statement: Statement, before cutoff: Int64, limit: Int) throws -> Int {
        defer { statement.reset() }
        try statement.bind(cutoff, at: 1)
        try statement.bind(Int64(limit), at: 2)
        try statement.step()
        return connection.changes
    }

    private func deleteLowestIDs(_ count: Int) throws -> Int {
        boundaryByCount.reset()
        try boundaryByCount.bind(Int64(count - 1), at: 1)
        guard try boundaryByCount.step() else { return 0 }
        let boundary = boundaryByCount.int64(at: 0)
        boundaryByCount.reset()
        defer { deleteUpToID.reset() }
        try deleteUpToID.bind(boundary, at: 1)
        try deleteUpToID.step()
        return connection.changes
    }

    /// One write transaction: the batch's DELETE and the record of it, committed together.
    private func inTransaction(now: Int64, _ delete: () throws -> Int) throws -> Int {
        try connection.transaction {
            let deleted = try delete()
            defer { recordPrune.reset() }
            try recordPrune.bind(now, at: 1)
            try recordPrune.bind(Int64(deleted), at: 2)
            try recordPrune.step()
            return deleted
        }
    }

    private func single(_ statement: Statement) throws -> Int64 {
        defer { statement.reset() }
        try statement.step()
        return statement.int64(at: 0)
    }
}
