// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import IntrapushDaemonKit

@Suite("Session state machine: connect, back off, reconnect, stop")
struct SessionStateMachineTests {
    typealias Machine = SessionStateMachine<FixedRandom>
    let start = ContinuousClock.now

    /// Jitter fixed at its top: every delay is exactly the ceiling d.
    func machine(min: Int = 1, max: Int = 60) -> Machine {
        Machine(backoff: Backoff(minimum: .seconds(min), maximum: .seconds(max)), random: FixedRandom(value: .max))
    }

    @Test("start dials at once")
    func startDials() {
        var session = machine()
        #expect(kinds(session.started()) == ["connect"])
        #expect(session.started() == [])
    }

    @Test("consecutive failures back off exponentially, capped at reconnect_max")
    func backoffSchedule() {
        var session = machine()
        _ = session.started()
        var delays: [Duration] = []
        for _ in 0..<8 {
            guard case .scheduleReconnect(let delay, _, _)? = (session.connectionFailed(.unreachable("refused"), at: start)).first else {
                Issue.record("expected a reconnect")
                return
            }
            delays.append(delay)
            #expect(kinds(session.reconnectDelayElapsed()) == ["connect"])
        }
        #expect(delays == [1, 2, 4, 8, 16, 32, 60, 60].map { Duration.seconds($0) })
    }

    @Test("the attempt counter resets only after a connection stayed up reconnect_max")
    func stableReset() {
        var session = machine()
        _ = session.started()
        _ = session.connectionFailed(.unreachable("refused"), at: start)
        _ = session.reconnectDelayElapsed()
        _ = session.connectionFailed(.unreachable("refused"), at: start)
        _ = session.reconnectDelayElapsed()
        // Up for 59 s only: not stable, the count goes on (3rd failure → 4 s).
        _ = session.connectionEstablished(at: start)
        #expect(session.connectionLost(.closedByServer(code: 1001), at: start + .seconds(59)) == [.scheduleReconnect(after: .seconds(4), attempt: 3, reason: .closedByServer(code: 1001))])
        _ = session.reconnectDelayElapsed()
        // Up for 60 s: stable, back to the first step.
        _ = session.connectionEstablished(at: start + .seconds(100))
        #expect(session.connectionLost(.deadPeer, at: start + .seconds(160)) == [.scheduleReconnect(after: .seconds(1), attempt: 1, reason: .deadPeer)])
    }

    @Test("a 401 or 403 is retried at the reconnect_max pace, never faster")
    func rejectedTokenPacing() {
        var session = machine()
        _ = session.started()
        for (attempt, status) in [401, 403, 401].enumerated() {
            #expect(session.connectionFailed(.handshakeRejected(status: status), at: start) == [.scheduleReconnect(after: .seconds(60), attempt: attempt + 1, reason: .handshakeRejected(status: status))])
            _ = session.reconnectDelayElapsed()
        }
        // Other statuses are ordinary failures with backoff (4th failure: d = 8 s).
        #expect(session.connectionFailed(.handshakeRejected(status: 500), at: start) == [.scheduleReconnect(after: .seconds(8), attempt: 4, reason: .handshakeRejected(status: 500))])
    }

    @Test("shutdown while connected closes, and the close of our own is never followed by a reconnect")
    func shutdownWhileConnected() {
        var session = machine()
        _ = session.started()
        _ = session.connectionEstablished(at: start)
        #expect(kinds(session.shutdownRequested()) == ["closeConnection(\(.shuttingDown as DisconnectReason))"])
        #expect(session.connectionLost(.closedByServer(code: 1000), at: start + .seconds(1)) == [.stop])
        #expect(session.state == .stopped)
        #expect(session.reconnectDelayElapsed() == [])
    }

    @Test("shutdown while waiting stops at once; while dialling cancels the dial")
    func shutdownElsewhere() {
        var waiting = machine()
        _ = waiting.started()
        _ = waiting.connectionFailed(.timedOut, at: start)
        #expect(waiting.shutdownRequested() == [.stop])
        #expect(waiting.reconnectDelayElapsed() == [])

        var dialling = machine()
        _ = dialling.started()
        #expect(kinds(dialling.shutdownRequested()) == ["cancelConnectAttempt"])
        #expect(dialling.connectionFailed(.reconfigured, at: start) == [.stop])
    }

    @Test("a dial that opens after shutdown was asked is closed, not kept")
    func openAfterShutdown() {
        var session = machine()
        _ = session.started()
        _ = session.shutdownRequested()
        #expect(kinds(session.connectionEstablished(at: start)) == ["closeConnection(\(.shuttingDown as DisconnectReason))"])
        #expect(session.connectionLost(.reconfigured, at: start) == [.stop])
    }

    @Test("a reload with new connection settings reconnects at once; without, keeps the connection")
    func reload() {
        var session = machine()
        _ = session.started()
        _ = session.connectionEstablished(at: start)
        #expect(session.reloaded(requiresReconnect: false) == [])
        #expect(kinds(session.reloaded(requiresReconnect: true)) == ["closeConnection(\(.reconfigured as DisconnectReason))"])
        #expect(kinds(session.connectionLost(.reconfigured, at: start + .seconds(1))) == ["connect"])
        #expect(session.consecutiveFailures == 0)
    }

    @Test("what counts as a reconnect: a loss or failure answered by trying again, never a shutdown's close")
    func reconnectsCounted() {
        var session = machine()
        _ = session.started()
        #expect(reconnects(session.connectionFailed(.unreachable("refused"), at: start)))
        _ = session.reconnectDelayElapsed()
        _ = session.connectionEstablished(at: start)
        #expect(reconnects(session.connectionLost(.deadPeer, at: start + .seconds(1))))
        _ = session.reconnectDelayElapsed()
        _ = session.connectionEstablished(at: start + .seconds(2))
        #expect(!reconnects(session.shutdownRequested()))
        #expect(!reconnects(session.connectionLost(.shuttingDown, at: start + .seconds(3))))
    }

    @Test("a reload's reconnect_min and reconnect_max pace the next wait")
    func reloadChangesBackoff() {
        var session = machine(min: 1, max: 60)
        _ = session.started()
        _ = session.connectionEstablished(at: start)
        _ = session.reloaded(requiresReconnect: false, backoff: Backoff(minimum: .seconds(5), maximum: .seconds(7)))
        guard case .scheduleReconnect(let delay, _, _)? = (session.connectionLost(.closedByServer(code: 1001), at: start + .seconds(1))).first else {
            Issue.record("expected a reconnect")
            return
        }
        #expect(delay == .seconds(5), "the new minimum, not the old one")
        #expect(session.backoff == Backoff(minimum: .seconds(5), maximum: .seconds(7)))
    }

    @Test("network coming back skips the backoff of a waiting session only")
    func networkAvailable() {
        var session = machine()
        _ = session.started()
        #expect(session.networkBecameAvailable() == [])
        _ = session.connectionFailed(.unreachable("network unreachable"), at: start)
        #expect(kinds(session.networkBecameAvailable()) == ["connect"])
    }

    @Test("the last failure is kept for the status line")
    func lastFailure() {
        var session = machine()
        _ = session.started()
        _ = session.connectionFailed(.handshakeRejected(status: 401), at: start)
        #expect(session.lastFailure?.isTokenRejection == true)
        #expect(StatusLine.reconnecting(in: .seconds(60), attempt: 1, reason: session.lastFailure!) == "token rejected by the server (HTTP 401); retrying in 60s (attempt 1)")
        #expect(StatusLine.reconnecting(in: .seconds(8), attempt: 3, reason: .unreachable("connection refused")) == "reconnecting in 8s (attempt 3): connection refused")
    }
}

@Suite("Session state machine: the live state it yields")
struct SessionStateMachineLiveStateTests {
    @Test("intrapush status reads the machine's state: connecting, connected, reconnecting, rejected, waiting for network")
    func derived() {
        let start = ContinuousClock.now
        var session = SessionStateMachine(backoff: Backoff(minimum: .seconds(1), maximum: .seconds(60)), random: FixedRandom(value: .max))
        #expect(session.liveState == .connecting)
        _ = session.started()
        #expect(session.liveState == .connecting)
        _ = session.connectionEstablished(at: start)
        #expect(session.liveState == .connected)
        _ = session.connectionLost(.deadPeer, at: start + .seconds(1))
        #expect(session.liveState == .reconnecting)
        _ = session.reconnectDelayElapsed()
        _ = session.connectionFailed(.handshakeRejected(status: 401), at: start)
        #expect(session.liveState == .rejected)
        _ = session.networkBecameUnavailable()
        #expect(session.liveState == .waitingForNetwork)
        _ = session.shutdownRequested()
        #expect(session.liveState == .stopped)
    }
}

/// Whether any of the actions tries the server again.
private func reconnects<Random>(_ actions: [SessionStateMachine<Random>.Action]) -> Bool {
    actions.contains { $0.reconnects }
}
