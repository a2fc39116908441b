// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif

/// Tells that the machine slept since the last look: CLOCK_BOOTTIME counts suspended time and
/// CLOCK_MONOTONIC does not, so the gap between them grows by exactly the time slept.
///
/// A connection that lived through a suspend is suspect (the server or a NAT may have dropped it
/// meanwhile, with nothing to tell us), so the daemon pings at once and reconnects when no reply
/// comes within a few seconds. The detector itself only compares the readings it is given; call
/// it on every timer wake-up. Gaps below `threshold` are ignored: both clocks tick from the same
/// source and do not drift apart, but two readings are not taken at the same instant.
struct SuspendDetector: Sendable {
    /// The least growth of the gap reported as a sleep.
    let threshold: Duration
    /// BOOTTIME − MONOTONIC at the last observation.
    private var lastGap: Duration?

    init(threshold: Duration = .seconds(2)) {
        self.threshold = threshold
    }

    /// Takes a reading of both clocks; returns how long the machine slept since the previous
    /// reading when that is more than `threshold`, else `nil` (always `nil` the first time).
    mutating func observed(monotonic: Duration, boottime: Duration) -> Duration? {
        let gap = boottime - monotonic
        defer { lastGap = gap }
        guard let lastGap else { return nil }
        let slept = gap - lastGap
        return slept > threshold ? slept : nil
    }

    /// Takes the current reading of the system's clocks.
    mutating func observedNow() -> Duration? {
        let reading = SystemClocks.read()
        return observed(monotonic: reading.monotonic, boottime: reading.boottime)
    }
}

/// Reads CLOCK_MONOTONIC (stops during suspend) and CLOCK_BOOTTIME (does not).
enum SystemClocks {
    static func read() -> (monotonic: Duration, boottime: Duration) {
        // Monotonic first: a suspend between the two reads then shows in this reading already.
        let monotonic = duration(of: CLOCK_MONOTONIC)
        return (monotonic, duration(of: CLOCK_BOOTTIME))
    }

    private static func duration(of clock: clockid_t) -> Duration {
        var spec = timespec()
        clock_gettime(clock, &spec)
        return .seconds(Int64(spec.tv_sec)) + .nanoseconds(Int64(spec.tv_nsec))
    }
}
