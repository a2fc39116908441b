// SPDX-License-Identifier: Apache-2.0

@testable import IntrapushDaemonKit
import IntrapushFleetSimulation
import Testing

@Suite("Fleet simulation (make fleet-sim) against the formula")
struct FleetSimulationTests {
    let backoff = Backoff(minimum: .seconds(1), maximum: .seconds(60))

    @Test("1,000 hosts, no downtime: first attempts are uniform in [0, reconnect_min] — the mean, the range and the peak agree")
    func uniformFirstAttempt() {
        let arrivals = FleetSimulation(hosts: 1000, backoff: backoff, downtime: .zero).arrivals()
        #expect(arrivals.count == 1000)
        #expect(arrivals.first! >= .zero && arrivals.last! <= .seconds(1))
        let mean = arrivals.reduce(Duration.zero, +) / 1000
        #expect(mean > .milliseconds(470) && mean < .milliseconds(530), "mean \(mean), expected 0.5 s")
        let report = FleetReport(arrivals: arrivals)
        // 1,000 uniform over 1 s: 100 per 100 ms on average; the busiest window is somewhat more.
        #expect(report.peakPer100ms >= 100 && report.peakPer100ms <= 140, "\(report)")
        #expect(report.untilAll == arrivals.last!)
    }

    @Test("with a close hint of 30 s every host comes back in [30 s, 60 s] minus the downtime, whatever the backoff")
    func hinted() {
        let arrivals = FleetSimulation(hosts: 1000, backoff: backoff, downtime: .seconds(2), retryAfter: .seconds(30)).arrivals()
        #expect(arrivals.first! >= .seconds(28) && arrivals.last! <= .seconds(58))
        let report = FleetReport(arrivals: arrivals)
        // 1,000 over 30 s: 3.3 per 100 ms on average.
        #expect(report.peakPer100ms <= 15, "\(report)")
    }

    @Test("attempts while the server is down fail and back off: nobody arrives before it returns")
    func downtimeRespected() {
        let arrivals = FleetSimulation(hosts: 1000, backoff: backoff, downtime: .seconds(2)).arrivals()
        #expect(arrivals.allSatisfy { $0 >= .zero })
        // No single wait exceeds reconnect_max, so nobody is later than that after the return; a
        // host that kept drawing short waits while the server was down has a long ceiling by then.
        #expect(arrivals.last! <= backoff.maximum, "\(arrivals.last!)")
        // A host's first attempt after the return is attempt 2 at the earliest, in [0, 2 s] (or 3,
        // [0, 4 s], ...): half the fleet is back within a couple of seconds.
        #expect(arrivals[500] <= .seconds(3), "median \(arrivals[500])")
    }

    @Test("the report's arithmetic: sliding peak, bins and percentiles on a known series")
    func reportArithmetic() {
        let arrivals: [Duration] = [0, 10, 20, 30, 150, 160, 170, 400].map { .milliseconds($0) }
        let report = FleetReport(arrivals: arrivals)
        #expect(report.peakPer100ms == 4)  // 0–30 ms
        #expect(report.p99Per100ms == 4)  // bins: [4, 3, 0, 0, 1]
        #expect(report.untilNinetyNinePercent == .milliseconds(400) && report.untilAll == .milliseconds(400))
    }
}

@Suite("Fleet simulation: a dead primary")
struct FailoverFleetSimulationTests {
    /// The fleet reaches the second server spread over the first backoff ceiling, not at once.
    @Test("every host reaches the second server, spread over reconnect_min")
    func spread() {
        let simulation = FleetSimulation(hosts: 2_000, backoff: Backoff(minimum: .seconds(1), maximum: .seconds(60)), downtime: .zero)
        let arrivals = simulation.failoverArrivals()
        #expect(arrivals.count == 2_000)
        #expect(arrivals.allSatisfy { $0 <= .seconds(1) }, "one backoff: the next server is up")
        let report = FleetReport(arrivals: arrivals)
        #expect(report.peakPer100ms < 400, "spread out (peak \(report.peakPer100ms) in 100 ms)")
    }
}
