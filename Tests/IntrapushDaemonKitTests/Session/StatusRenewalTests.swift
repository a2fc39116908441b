// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import IntrapushDaemonKit

@Suite("STATUS= counts: at most once a second, true within a second of the last change")
struct StatusRenewalTests {
    typealias Renewal = StatusRenewal<Duration>
    func make() -> Renewal { Renewal(spacing: .seconds(1)) { $0 + $1 } }

    @Test("the first change after a quiet second is shown at once")
    func firstChangeAtOnce() {
        var renewal = make()
        #expect(renewal.countChanged(at: .seconds(10)) == .renewNow)
        #expect(renewal.countChanged(at: .seconds(12)) == .renewNow)
    }

    @Test("a burst: one line at its start, one timer, one line for the rest when the second ends")
    func burst() {
        var renewal = make()
        #expect(renewal.countChanged(at: .seconds(10)) == .renewNow)
        #expect(renewal.countChanged(at: .milliseconds(10_100)) == .renewAt(.seconds(11)))
        for step in 2..<9 {
            #expect(renewal.countChanged(at: .milliseconds(10_000 + 100 * step)) == .wait, "one timer, not one per push")
        }
        #expect(renewal.renewalDue(at: .seconds(11)) == .renewNow, "the burst's last count is shown")
        #expect(renewal.countChanged(at: .milliseconds(11_500)) == .renewAt(.seconds(12)))
    }

    @Test("a timer with nothing left to show writes nothing; idle, nothing is armed")
    func nothingLeft() {
        var renewal = make()
        #expect(renewal.countChanged(at: .seconds(10)) == .renewNow)
        #expect(renewal.countChanged(at: .milliseconds(10_500)) == .renewAt(.seconds(11)))
        renewal.renewed(at: .milliseconds(10_700))  // a state change wrote the line meanwhile
        #expect(renewal.renewalDue(at: .seconds(11)) == .wait)
        #expect(renewal.countChanged(at: .seconds(20)) == .renewNow, "no timer left armed")
    }
}
