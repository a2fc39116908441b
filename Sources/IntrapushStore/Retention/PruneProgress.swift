// SPDX-License-Identifier: Apache-2.0

/// What one `NotificationStore.pruneBatch` call did, or, added up, what a whole pass did.
package struct PruneProgress: Sendable, Equatable, CustomStringConvertible {
    /// Rows deleted because they were older than `retention_days`.
    package var deletedByAge: Int
    /// Rows deleted because there were more than `retention_max_rows`.
    package var deletedByCount: Int
    /// Write transactions it took (one per batch).
    package var batches: Int
    /// `true` when the pass is over: nothing more to prune until new rows arrive or time passes.
    /// The next `pruneBatch` call starts a new pass.
    package var isComplete: Bool

    package init(deletedByAge: Int = 0, deletedByCount: Int = 0, batches: Int = 0, isComplete: Bool = false) {
        self.deletedByAge = deletedByAge
        self.deletedByCount = deletedByCount
        self.batches = batches
        self.isComplete = isComplete
    }

    /// All rows deleted.
    package var deleted: Int { deletedByAge + deletedByCount }

    /// Adds a batch's figures to a pass's; the pass is complete when that batch completed it.
    package mutating func add(_ batch: PruneProgress) {
        deletedByAge += batch.deletedByAge
        deletedByCount += batch.deletedByCount
        batches += batch.batches
        isComplete = batch.isComplete
    }

    /// A log line for a finished pass, e.g.
    /// `pruned 1200 notifications (1000 older than the retention period, 200 beyond the row limit) in 3 batches`.
    package var description: String {
        guard deleted > 0 else { return "nothing to prune" }
        var reasons: [String] = []
        if deletedByAge > 0 { reasons.append("\(deletedByAge) older than the retention period") }
        if deletedByCount > 0 { reasons.append("\(deletedByCount) beyond the row limit") }
        return "pruned \(deleted) notification\(deleted == 1 ? "" : "s") (\(reasons.joined(separator: ", "))) "
            + "in \(batches) batch\(batches == 1 ? "" : "es")"
    }
}
