// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import IntrapushDaemonKit

@Suite("Connection liveness: heartbeat and dead peer")
struct ConnectionLivenessTests {
    let start = ContinuousClock.now

    func machine(interval: Int = 10, deadPeer: Int = 30) -> ConnectionLiveness {
        ConnectionLiveness(heartbeatInterval: .seconds(interval), deadPeerTimeout: .seconds(deadPeer), openedAt: start)
    }

    @Test("the first heartbeat is due one interval after the open, then every interval")
    func heartbeatCadence() {
        var liveness = machine()
        #expect(liveness.nextWakeUp == start + .seconds(10))
        liveness.frameReceived(at: start + .seconds(9))
        #expect(liveness.timerFired(at: start + .seconds(10)) == .sendHeartbeat(thenWakeAt: start + .seconds(20)))
        liveness.frameReceived(at: start + .seconds(15))
        #expect(liveness.timerFired(at: start + .seconds(20)) == .sendHeartbeat(thenWakeAt: start + .seconds(30)))
        #expect(liveness.heartbeatsSent == 2)
    }

    @Test("an early timer waits instead of sending")
    func earlyTimer() {
        var liveness = machine()
        #expect(liveness.timerFired(at: start + .seconds(5)) == .wait(until: start + .seconds(10)))
        #expect(liveness.heartbeatsSent == 0)
    }

    @Test("nothing received for dead_peer_timeout closes the connection")
    func deadPeer() {
        var liveness = machine()
        #expect(liveness.timerFired(at: start + .seconds(10)) == .sendHeartbeat(thenWakeAt: start + .seconds(20)))
        #expect(liveness.timerFired(at: start + .seconds(20)) == .sendHeartbeat(thenWakeAt: start + .seconds(30)))
        #expect(liveness.timerFired(at: start + .seconds(30)) == .closeDeadConnection)
    }

    @Test("any frame received pushes the dead-peer deadline back")
    func frameKeepsAlive() {
        var liveness = machine()
        liveness.frameReceived(at: start + .seconds(25))
        #expect(liveness.timerFired(at: start + .seconds(30)) != .closeDeadConnection)
        #expect(liveness.timerFired(at: start + .seconds(54)) != .closeDeadConnection)
        #expect(liveness.timerFired(at: start + .seconds(55)) == .closeDeadConnection)
    }

    @Test("a dead-peer timeout between heartbeats wakes the timer at the deadline")
    func deadlineBetweenBeats() {
        var liveness = machine(interval: 10, deadPeer: 15)
        #expect(liveness.timerFired(at: start + .seconds(10)) == .sendHeartbeat(thenWakeAt: start + .seconds(15)))
        #expect(liveness.timerFired(at: start + .seconds(15)) == .closeDeadConnection)
    }

    @Test("a late timer skips missed beats instead of sending a burst")
    func lateTimer() {
        var liveness = machine(interval: 10, deadPeer: 100)
        liveness.frameReceived(at: start + .seconds(34))
        #expect(liveness.timerFired(at: start + .seconds(35)) == .sendHeartbeat(thenWakeAt: start + .seconds(40)))
        #expect(liveness.heartbeatsSent == 1)
    }
}
