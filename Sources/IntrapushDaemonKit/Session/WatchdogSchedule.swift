// SPDX-License-Identifier: Apache-2.0

/// When the session loop feeds systemd's watchdog (pure: the loop gives the time).
///
/// Feeding rides on the loop's own turns — a heartbeat, an acknowledged batch, a reconnect
/// timer — at most every quarter period, so a connected daemon spends no wake-up on it. A turn
/// proves the push loop answers, and with it the database: the loop commits the pushes, so a
/// write that does not finish holds the turns back. When no heartbeat is due to turn the loop, a
/// fallback turn comes half a period after the last due one. systemd restarts the daemon after
/// a whole period without feeding.
struct WatchdogSchedule {
    /// `WATCHDOG_USEC`.
    let period: Duration
    private(set) var lastFedAt: ContinuousClock.Instant?
    /// A fallback turn is on its way: another would only add a wake-up.
    private(set) var isFallbackArmed = false

    init(period: Duration) {
        self.period = period
    }

    /// The delay of a fallback turn after a due one.
    var fallbackDelay: Duration { period / 2 }

    /// Whether this turn should check and feed.
    func isDue(at now: ContinuousClock.Instant) -> Bool {
        guard let lastFedAt else { return true }
        return now - lastFedAt >= period / 4
    }

    mutating func fed(at now: ContinuousClock.Instant) {
        lastFedAt = now
    }

    /// After a due turn: whether to arm a fallback turn. Not while heartbeats come at most
    /// `period / 2` apart: a feed is then at most 3/4 of a period after the last.
    mutating func armsFallback(heartbeatInterval: Duration?) -> Bool {
        if let heartbeatInterval, heartbeatInterval > .zero, heartbeatInterval <= period / 2 { return false }
        guard !isFallbackArmed else { return false }
        isFallbackArmed = true
        return true
    }

    /// The fallback turn came.
    mutating func fallbackFired() {
        assert(isFallbackArmed, "a watchdog fallback fired that was never armed")
        isFallbackArmed = false
    }
}
