// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import IntrapushDaemonKit

/// A generator that always yields the same value, so jitter is fixed.
struct FixedRandom: RandomNumberGenerator, Sendable {
    var value: UInt64
    mutating func next() -> UInt64 { value }
}

@Suite("Backoff")
struct BackoffTests {
    let backoff = Backoff(minimum: .seconds(1), maximum: .seconds(60))

    @Test("ceiling doubles from reconnect_min and stops at reconnect_max")
    func ceilingCurve() {
        let ceilings = (1...9).map { backoff.ceiling(forAttempt: $0) }
        #expect(ceilings == [1, 2, 4, 8, 16, 32, 60, 60, 60].map { Duration.seconds($0) })
    }

    @Test("full jitter: 1 waits the whole ceiling, 0 not at all, 0.5 half of it")
    func exactWithFixedJitter() {
        #expect(backoff.delay(forAttempt: 3, jitter: 1) == .seconds(4))
        #expect(backoff.delay(forAttempt: 3, jitter: 0) == .zero)
        #expect(backoff.delay(forAttempt: 4, jitter: 0.5) == .seconds(4))
        #expect(backoff.delay(forAttempt: 20, jitter: 0.25) == .seconds(15))
    }

    @Test("a huge attempt number neither overflows nor exceeds the maximum")
    func hugeAttempt() {
        #expect(backoff.ceiling(forAttempt: Int.max) == .seconds(60))
    }

    @Test("random jitter stays within [0, d] and spreads over the whole of it")
    func jitterInRange() {
        var random = SystemRandomNumberGenerator()
        for attempt in 1...10 {
            let ceiling = backoff.ceiling(forAttempt: attempt)
            let delays = (0..<200).map { _ in backoff.delay(forAttempt: attempt, using: &random) }
            #expect(delays.allSatisfy { $0 >= .zero && $0 <= ceiling })
            // Full jitter: both halves of the window are used.
            #expect(delays.contains { $0 < ceiling / 4 } && delays.contains { $0 > ceiling * 3 / 4 })
            // Not all the same: the point of jitter is to spread a fleet.
            #expect(Set(delays.map { $0.components.attoseconds }).count > 100)
        }
    }

    @Test("fractional durations keep their precision")
    func fractional() {
        let quick = Backoff(minimum: .milliseconds(250), maximum: .seconds(2))
        #expect(quick.delay(forAttempt: 1, jitter: 1) == .milliseconds(250))
        #expect(quick.delay(forAttempt: 2, jitter: 0.5) == .milliseconds(250))
        #expect(quick.ceiling(forAttempt: 5) == .seconds(2))
    }
}
