// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import IntrapushDaemonKit

@Suite("Connection liveness: verifying after a network change or a suspend")
struct ConnectionVerificationTests {
    let start = ContinuousClock.now

    /// The defaults: heartbeat every 10 s, dead peer after 30 s, a verification gets 5 s.
    func machine() -> ConnectionLiveness {
        ConnectionLiveness(heartbeatInterval: .seconds(10), deadPeerTimeout: .seconds(30), openedAt: start)
    }

    @Test("a network change pings now and drops the connection when nothing answers within 5 s")
    func unansweredVerification() {
        var liveness = machine()
        liveness.frameReceived(at: start + .seconds(2))
        #expect(liveness.verificationRequested(at: start + .seconds(3)) == .sendPing(thenWakeAt: start + .seconds(8)))
        #expect(liveness.timerFired(at: start + .seconds(8)) == .closeUnverifiedConnection)
    }

    @Test("any frame after the ping ends the verification; the ordinary cadence goes on")
    func answeredVerification() {
        var liveness = machine()
        _ = liveness.verificationRequested(at: start + .seconds(3))
        liveness.frameReceived(at: start + .milliseconds(3_020))  // the pong
        #expect(liveness.verifyingSince == nil)
        #expect(liveness.nextWakeUp == start + .seconds(10))
        #expect(liveness.timerFired(at: start + .seconds(10)) == .sendHeartbeat(thenWakeAt: start + .seconds(20)))
    }

    @Test("a second change during a verification keeps the first deadline")
    func repeatedRequest() {
        var liveness = machine()
        _ = liveness.verificationRequested(at: start + .seconds(1))
        #expect(liveness.verificationRequested(at: start + .seconds(4)) == .sendPing(thenWakeAt: start + .seconds(6)))
        #expect(liveness.timerFired(at: start + .seconds(6)) == .closeUnverifiedConnection)
    }

    @Test("the dead-peer timeout still wins when it comes first")
    func deadPeerFirst() {
        var liveness = ConnectionLiveness(heartbeatInterval: .milliseconds(200), deadPeerTimeout: .milliseconds(600), openedAt: start)
        #expect(liveness.verificationRequested(at: start + .milliseconds(100)) == .sendPing(thenWakeAt: start + .milliseconds(200)))
        _ = liveness.timerFired(at: start + .milliseconds(200))
        _ = liveness.timerFired(at: start + .milliseconds(400))
        #expect(liveness.timerFired(at: start + .milliseconds(600)) == .closeDeadConnection)
    }

    /// Readings as the detector would take them: 20 s awake, then 3 h asleep. The timer wakes
    /// on CLOCK_MONOTONIC, 10 s of awake time after it was armed, while the instants (BOOTTIME,
    /// like ContinuousClock on Linux) jumped 3 h: the silence is the sleep's, not the peer's.
    @Test("after a suspend: a heartbeat and ping at once, not a dead-peer close; closed if unanswered")
    func suspendChecksFirst() throws {
        var detector = SuspendDetector()
        var liveness = machine()
        _ = detector.observed(monotonic: .seconds(1000), boottime: .seconds(1000))
        #expect(detector.observed(monotonic: .seconds(1010), boottime: .seconds(1010)) == nil)
        #expect(liveness.timerFired(at: start + .seconds(10), slept: nil) == .sendHeartbeat(thenWakeAt: start + .seconds(20)))
        liveness.frameReceived(at: start + .seconds(11))
        let reading = detector.observed(monotonic: .seconds(1020), boottime: .seconds(1020 + 3 * 3600))
        let slept = try #require(reading)
        #expect(slept == .seconds(3 * 3600))
        let wake = start + .seconds(20 + 3 * 3600)
        #expect(liveness.timerFired(at: wake, slept: slept) == .sendHeartbeat(thenWakeAt: wake + .seconds(5)))
        #expect(liveness.timerFired(at: wake + .seconds(5)) == .closeUnverifiedConnection)
    }

    /// Instants from a clock that stops while the machine sleeps: the heartbeat is not due yet
    /// (5 s awake since the open), so a ping alone verifies.
    @Test("after a suspend, an answer keeps the connection; the sleep does not count as silence")
    func suspendAnswered() {
        var liveness = machine()
        let wake = start + .seconds(5)
        #expect(liveness.timerFired(at: wake, slept: .seconds(3600)) == .sendPing(thenWakeAt: start + .seconds(10)))
        liveness.frameReceived(at: wake + .milliseconds(30))
        #expect(liveness.verifyingSince == nil)
        #expect(liveness.timerFired(at: start + .seconds(10)) == .sendHeartbeat(thenWakeAt: start + .seconds(20)))
    }

    @Test("without a sleep reading the silence of a suspend is a dead peer (the old behaviour)")
    func withoutDetector() {
        var liveness = machine()
        #expect(liveness.timerFired(at: start + .seconds(3600)) == .closeDeadConnection)
    }
}
