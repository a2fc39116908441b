// SPDX-License-Identifier: Apache-2.0

/// Exponential reconnect backoff with full jitter (docs/protocol.md, RECON-1).
///
/// Before attempt *n* (consecutive failures counted from 1) the daemon waits a uniformly random
/// time in [0, d], where d = min(`maximum`, `minimum` · 2^(n−1)). With the defaults (1 s, 60 s):
///
/// | attempt | d     | wait        |
/// |---------|-------|-------------|
/// | 1       | 1 s   | 0–1 s       |
/// | 2       | 2 s   | 0–2 s       |
/// | 3       | 4 s   | 0–4 s       |
/// | 7       | 60 s  | 0–60 s      |
///
/// "Full jitter" (AWS's analysis of backoff): a fleet that lost the same server comes back spread
/// over the whole of [0, d]; the former [d/2, d] packed it into half the window, twice as dense.
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

    /// The wait before attempt `attempt`: `jitter` in [0, 1] picks a point of [0, d].
    package func delay(forAttempt attempt: Int, jitter: Double) -> Duration {
        ceiling(forAttempt: attempt) * min(1, max(0, jitter))
    }

    /// The wait after the server asked for `hint` before attempt `attempt`: a point of [N, 2N]
    /// picked by `hintJitter`, N the hint, capped at ten times `maximum` (a server's mistake must
    /// not silence a host for days) — and never shorter than the daemon's own backoff would
    /// wait (`attemptJitter`): `Retry-After: 0` from a balancer must not turn the backoff off.
    package func delay(afterHint hint: Duration, attempt: Int, hintJitter: Double, attemptJitter: Double) -> Duration {
        let bounded = min(max(hint, .zero), RetryHint.longest)
        let hinted = min(bounded + bounded * min(1, max(0, hintJitter)), maximum * 10)
        return max(hinted, delay(forAttempt: attempt, jitter: attemptJitter))
    }

    /// The wait after the server's hint, with both jitters drawn from `random`.
    package func delay(afterHint hint: Duration, attempt: Int, using random: inout some RandomNumberGenerator) -> Duration {
        let hintJitter = Double.random(in: 0...1, using: &random)
        return delay(afterHint: hint, attempt: attempt, hintJitter: hintJitter, attemptJitter: Double.random(in: 0...1, using: &random))
    }

    /// The wait before attempt `attempt`, with the jitter drawn from `random`.
    package func delay(forAttempt attempt: Int, using random: inout some RandomNumberGenerator) -> Duration {
        delay(forAttempt: attempt, jitter: Double.random(in: 0...1, using: &random))
    }
}
