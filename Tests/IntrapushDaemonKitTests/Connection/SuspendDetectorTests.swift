// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import IntrapushDaemonKit

@Suite("Suspend detector: BOOTTIME running ahead of MONOTONIC")
struct SuspendDetectorTests {
    @Test("the first reading only sets the baseline")
    func firstReading() {
        var detector = SuspendDetector()
        #expect(detector.observed(monotonic: .seconds(100), boottime: .seconds(5000)) == nil)
    }

    @Test("clocks advancing together, with the jitter of two separate reads, are no sleep")
    func normalRunning() {
        var detector = SuspendDetector()
        var monotonic = Duration.seconds(1000)
        var boottime = Duration.seconds(1300)
        _ = detector.observed(monotonic: monotonic, boottime: boottime)
        for step in 1...1000 {
            monotonic += .seconds(10)
            boottime += .seconds(10) + .microseconds(step % 2 == 0 ? 40 : -40)
            #expect(detector.observed(monotonic: monotonic, boottime: boottime) == nil)
        }
    }

    @Test("a suspend reports the time slept, once")
    func suspendReported() {
        var detector = SuspendDetector()
        _ = detector.observed(monotonic: .seconds(500), boottime: .seconds(600))
        // 10 s awake, then 3 h asleep: MONOTONIC moves 10 s, BOOTTIME 10 s + 3 h.
        #expect(detector.observed(monotonic: .seconds(510), boottime: .seconds(610 + 3 * 3600)) == .seconds(3 * 3600))
        #expect(detector.observed(monotonic: .seconds(520), boottime: .seconds(620 + 3 * 3600)) == nil)
    }

    @Test("a sleep shorter than the threshold is ignored; one just longer is reported")
    func threshold() {
        var detector = SuspendDetector(threshold: .seconds(2))
        _ = detector.observed(monotonic: .seconds(10), boottime: .seconds(10))
        #expect(detector.observed(monotonic: .seconds(20), boottime: .seconds(22)) == nil)
        #expect(detector.observed(monotonic: .seconds(30), boottime: .milliseconds(34_001)) == .milliseconds(2001))
    }

    @Test("the system's clocks read as awake: BOOTTIME at or ahead of MONOTONIC, no sleep seen")
    func systemClocks() {
        let reading = SystemClocks.read()
        #expect(reading.boottime >= reading.monotonic)
        var detector = SuspendDetector()
        #expect(detector.observedNow() == nil)
        #expect(detector.observedNow() == nil)
    }
}
