// SPDX-License-Identifier: Apache-2.0

import IntrapushStore
import IntrapushSupport
import NIOCore

/// Retention's writes: each call is one short task queued on the writing loop, so the pushes'
/// commits (and heartbeats) run between any two of them.
extension StoreWorker {
    /// The policy the live state carries (set at start and on reload); keeps everything when unset.
    var retentionPolicy: RetentionPolicy {
        let state = liveState.withLockedValue { $0 }
        return RetentionPolicy(days: state.retentionDays ?? 0, maximumRows: state.retentionMaxRows ?? 0)
    }

    /// Asks for a pass now (after a reload); does not wait.
    func requestPrune() {
        pruneRequests.continuation.yield()
    }

    /// One `NotificationStore.pruneBatch`, in its own short transaction.
    func pruneBatch(policy: RetentionPolicy) async throws -> PruneProgress {
        let store = self.store
        return try await executor.runIfActive {
            try store.pruneBatch(policy: policy, now: WallClock.nowMilliseconds())
        }
    }

    /// Gives up to 256 free pages back to the file system; returns how many are left.
    func reclaimFreePages() async throws -> Int {
        let store = self.store
        return try await executor.runIfActive { try store.reclaimFreePages() }
    }
}
