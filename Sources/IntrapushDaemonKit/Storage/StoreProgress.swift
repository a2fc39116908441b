/// Whether the database writer keeps up, as the stall reporter sees it: work is waiting and none
/// of it finished for a while. Kept as work is handed over and finishes, so checking it from
/// another thread asks nothing of the writer's loop (a write in fsync cannot answer). Pure: the caller gives the time.
struct StoreProgress {
    /// Writes handed to the writer and not finished yet.
    private(set) var pending = 0
    /// The last time a task finished, or work arrived at an idle writer.
    private(set) var lastProgressAt: ContinuousClock.Instant

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

    /// How long work has waited without any of it finishing; nil when nothing waits.
    func stalledFor(at now: ContinuousClock.Instant) -> Duration? {
        pending > 0 ? now - lastProgressAt : nil
    }
}
