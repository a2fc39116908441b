/// Jittered exponential reconnect backoff (README "The wire protocol", Backoff).
///
/// Before attempt *n* (consecutive failures counted from 1) the daemon waits a uniformly random
/// time in [d/2, d], where d = min(`maximum`, `minimum` · 2^(n−1)). With the defaults (1 s, 60 s):
///
/// | attempt | d     | wait        |
/// |---------|-------|-------------|
/// | 1       | 1 s   | 0.5–1 s     |
/// | 2       | 2 s   | 1–2 s       |
/// | 3       | 4 s   | 2–4 s       |
/// | 7       | 60 s  | 30–60 s     |
///
/// The jitter spreads a fleet that lost the same server so it does not return all at once.
package struct Backoff: Sendable, Equatable {
    package var minimum: Duration
    package var maximum: Duration

    package init(minimum: Duration, maximum: Duration) {
        self.minimum = minimum
        self.maximum = max(minimum, maximum)
    }

    /// The ceiling d for attempt `attempt` (≥ 1).
    package func ceiling(forAttempt attempt: Int) -> Duration {
        // Doubling stops once past the maximum, so large attempt numbers cannot overflow.
        var ceiling = minimum
        var doublings = max(0, attempt - 1)
        while doublings > 0 && ceiling < maximum {
            ceiling = ceiling * 2
            doublings -= 1
        }
        return min(ceiling, maximum)
    }

    /// The wait before attempt `attempt`: `jitter` in [0, 1] picks a point of [d/2, d].
    package func delay(forAttempt attempt: Int, jitter: Double) -> Duration {
        let ceiling = ceiling(forAttempt: attempt)
        let clamped = min(1, max(0, jitter))
        return ceiling / 2 + (ceiling / 2) * clamped
    }

    /// The wait before attempt `attempt`, with the jitter drawn from `random`.
    package func delay(forAttempt attempt: Int, using random: inout some RandomNumberGenerator) -> Duration {
        delay(forAttempt: attempt, jitter: Double.random(in: 0...1, using: &random))
    }
}
