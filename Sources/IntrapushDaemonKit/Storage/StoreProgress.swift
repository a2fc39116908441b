// SPDX-License-Identifier: Apache-2.0

/// Whether the database writer keeps up, as the stall reporter sees it: work is waiting and none
/// of it finished for a while. Kept as work is handed over and finishes, so checking it from
/// another thread asks nothing of the writer's loop (a write in fsync cannot answer). Pure: the caller gives the time.
struct StoreProgress {
    /// Writes handed to the writer and not finished yet.
    private(set) var pending = 0
    /// The last time a task finished, or work arrived at an idle writer.
    private(set) var lastProgressAt: ContinuousClock.Instant
    /// Since when a committed batch's sync has run beside the writer: a sync that hangs is a
    /// stall however much of the writer's own work finishes meanwhile.
    private(set) var syncBesideSince: ContinuousClock.Instant?

    init(at now: ContinuousClock.Instant) {
        lastProgressAt = now
    }

    mutating func submitted(at now: ContinuousClock.Instant) {
        if pending == 0 { lastProgressAt = now }  // an idle writer owes nothing until now
        pending += 1
    }

    mutating func finished(at now: ContinuousClock.Instant) {
        assert(pending > 0, "a store task finished that was never submitted")
        pending -= 1
        lastProgressAt = now
    }

    /// Syncs beside queued or running (a burst's batch, a slice of marks): one at a time.
    private var syncsBeside = 0

    mutating func syncBesideStarted(at now: ContinuousClock.Instant) {
        if syncsBeside == 0 { syncBesideSince = now }
        syncsBeside += 1
    }

    mutating func syncBesideFinished(at now: ContinuousClock.Instant) {
        syncsBeside -= 1
        // The next one, queued behind it, starts now.
        syncBesideSince = syncsBeside > 0 ? now : nil
        lastProgressAt = now
    }

    var isIdle: Bool { pending == 0 && syncBesideSince == nil }

    /// How long work has waited without any of it finishing, or the sync beside has run,
    /// whichever is longer; nil when nothing waits.
    func stalledFor(at now: ContinuousClock.Instant) -> Duration? {
        let waited = pending > 0 ? now - lastProgressAt : nil
        guard let syncBesideSince else { return waited }
        return max(waited ?? .zero, now - syncBesideSince)
    }
}
