// SPDX-License-Identifier: Apache-2.0

/// When the counts in `STATUS=` are written again (pure; instants are given).
///
/// A burst of pushes changes the count many times a second; systemd needs it at most once a
/// second. The first change after a quiet second is shown at once; the changes within the next
/// second are shown together when it ends, by one timer, so the line is true within a second of
/// the last change. Nothing changes, nothing is scheduled: an idle daemon has no timer for it.
struct StatusRenewal<Instant: Comparable & Sendable> {
    enum Action: Equatable {
        /// Write the line now.
        case renewNow
        /// Arm one timer for this instant, then write the line (`renewalDue`).
        case renewAt(Instant)
        /// A timer is armed already, or nothing is left to show.
        case wait
    }

    let spacing: Duration
    let advance: (Instant, Duration) -> Instant
    private(set) var lastRenewalAt: Instant?
    private var isTimerArmed = false
    private var isChangeUnshown = false

    init(spacing: Duration, advance: @escaping (Instant, Duration) -> Instant) {
        self.spacing = spacing
        self.advance = advance
    }

    /// A count in the line changed at `now`.
    mutating func countChanged(at now: Instant) -> Action {
        if isTimerArmed {
            isChangeUnshown = true
            return .wait
        }
        if let last = lastRenewalAt, now < advance(last, spacing) {
            isTimerArmed = true
            isChangeUnshown = true
            return .renewAt(advance(last, spacing))
        }
        lastRenewalAt = now
        return .renewNow
    }

    /// The armed timer fired at `now`.
    mutating func renewalDue(at now: Instant) -> Action {
        isTimerArmed = false
        guard isChangeUnshown else { return .wait }
        isChangeUnshown = false
        lastRenewalAt = now
        return .renewNow
    }

    /// The line was written for another reason (a state change) at `now`: it is up to date.
    mutating func renewed(at now: Instant) {
        lastRenewalAt = now
        isChangeUnshown = false
    }
}
