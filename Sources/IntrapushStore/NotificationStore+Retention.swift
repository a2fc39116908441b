// SPDX-License-Identifier: Apache-2.0

extension NotificationStore {
    /// Rows one `pruneBatch` deletes at most by default: a few milliseconds of write lock.
    package static let defaultPruneBatchSize = 1000

    /// Prunes one batch of what `policy` no longer keeps, in one short write transaction that
    /// also adds to `pruned_total` and sets `last_prune_at` in `daemon_state`.
    ///
    /// Call it again until the result `isComplete`, on the writer's loop between commits; then,
    /// for a file that can shrink, call `reclaimFreePages` likewise. The end of a pass writes
    /// `last_prune_at` even when nothing was deleted; a policy that keeps everything writes nothing.
    ///
    /// - Parameters:
    ///   - now: Unix milliseconds; rows with `received_at` older than `now` − `days` go.
    ///   - batchSize: the most rows this call deletes.
    package func pruneBatch(
        policy: RetentionPolicy, now: Int64, batchSize: Int = NotificationStore.defaultPruneBatchSize
    ) throws -> PruneProgress {
        let pruner = try retentionPruner ?? RetentionPruner(connection: connection)
        retentionPruner = pruner
        return try pruner.pruneBatch(policy: policy, now: now, batchSize: batchSize)
    }

    /// Gives up to `pages` free pages back to the file system (`PRAGMA incremental_vacuum`) when
    /// the database was created with incremental auto-vacuum; otherwise does nothing, and the
    /// free pages are reused by later inserts.
    ///
    /// - Returns: the free pages left; call again (between commits) while it is above 0.
    @discardableResult
    package func reclaimFreePages(atMost pages: Int = 256) throws -> Int {
        guard try autoVacuum() == .incremental else { return 0 }
        let free = try freePageCount()
        guard free > 0 else { return 0 }
        // Run with sqlite3_exec: the pragma frees one page per step, and exec steps to the end.
        try connection.execute("PRAGMA incremental_vacuum(\(max(1, pages)))")
        return try freePageCount()
    }

    /// The database's auto-vacuum mode, which `AutoVacuum.notice` turns into a log line.
    package func autoVacuum() throws -> AutoVacuum {
        let value = try connection.text("PRAGMA auto_vacuum").flatMap { Int($0) } ?? 0
        return AutoVacuum(rawValue: value) ?? .none
    }

    /// Pages in the file that hold no data (`PRAGMA freelist_count`).
    package func freePageCount() throws -> Int {
        try connection.text("PRAGMA freelist_count").flatMap { Int($0) } ?? 0
    }
}
