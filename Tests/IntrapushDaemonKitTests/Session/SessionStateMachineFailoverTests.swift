// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import IntrapushDaemonKit

/// More than one server: the next attempt goes to the next server, a server's hint or refusal
/// holds back that server only, and the primary is tried again from a fallback.
@Suite("Session state machine: failover and failback")
struct SessionStateMachineFailoverTests {
    typealias Machine = SessionStateMachine<FixedRandom>
    let start = ContinuousClock.now

    func machine(servers: Int = 3, failback: Duration? = .seconds(300)) -> Machine {
        Machine(
            backoff: Backoff(minimum: .seconds(1), maximum: .seconds(60)), random: FixedRandom(value: .max),
            serverCount: servers, failbackInterval: failback)
    }

    /// The wait of a lone scheduleReconnect.
    func delay(_ actions: [Machine.Action]) -> Duration? {
        guard actions.count == 1, case .scheduleReconnect(let delay, _, _)? = actions.first else { return nil }
        return delay
    }

    @Test("each failure sends the next attempt to the next server in order, after the usual backoff")
    func order() {
        var session = machine()
        #expect(kinds(session.started()) == ["connect"])
        var visited = [session.currentServer]
        var delays: [Duration] = []
        for _ in 0..<4 {
            delays.append(delay(session.connectionFailed(.unreachable("refused"), at: start)) ?? .zero)
            #expect(kinds(session.reconnectDelayElapsed()) == ["connect"])
            visited.append(session.currentServer)
        }
        #expect(visited == [0, 1, 2, 0, 1])
        #expect(delays == [1, 2, 4, 8].map { Duration.seconds($0) })
        #expect(session.primaryUnreachableSince == start)
    }

    @Test("a lost connection goes on to the next server too")
    func lostConnection() {
        var session = machine(servers: 2)
        _ = session.started()
        _ = session.connectionEstablished(at: start)
        _ = session.connectionLost(.deadPeer, at: start + .seconds(5))
        #expect(session.currentServer == 1)
        #expect(session.primaryUnreachableSince == start + .seconds(5))
    }

    @Test("a token refused by one server does not stop the others; it is tried again at the reconnect_max pace")
    func tokenRejection() {
        var session = machine(servers: 2)
        _ = session.started()
        #expect(delay(session.connectionFailed(.handshakeRejected(status: 401), at: start)) == .seconds(1))
        #expect(session.currentServer == 1)
        _ = session.reconnectDelayElapsed()
        // The second server is down too: it is tried again (backoff) while the first's refusal
        // holds it back for reconnect_max; after that, the first again.
        #expect(delay(session.connectionFailed(.unreachable("refused"), at: start + .seconds(1))) == .seconds(2))
        #expect(session.currentServer == 1)
        _ = session.reconnectDelayElapsed()
        _ = session.connectionFailed(.unreachable("refused"), at: start + .seconds(60))
        #expect(session.currentServer == 0)
    }

    @Test("a server's retry hint holds back that server only")
    func hintPerServer() {
        var session = machine(servers: 3)
        _ = session.started()
        let hinted = session.connectionFailed(.serverAskedToWait(.seconds(3600), origin: "Retry-After"), at: start)
        #expect(delay(hinted) == .seconds(1))
        #expect(session.currentServer == 1)
        _ = session.reconnectDelayElapsed()
        _ = session.connectionFailed(.unreachable("refused"), at: start + .seconds(1))
        #expect(session.currentServer == 2, "the hinted primary is passed over")
        _ = session.reconnectDelayElapsed()
        _ = session.connectionFailed(.unreachable("refused"), at: start + .seconds(3))
        #expect(session.currentServer == 1, "still passed over while its hint lasts")
    }

    @Test("connected to a fallback: the primary is tried every failback_interval, and taken once it is up")
    func failback() {
        var session = machine(servers: 2, failback: .seconds(300))
        _ = session.started()
        _ = session.connectionFailed(.unreachable("refused"), at: start)
        _ = session.reconnectDelayElapsed()
        #expect(kinds(session.connectionEstablished(at: start + .seconds(1))) == ["useConnection", "scheduleFailback(300.0 seconds)"])
        #expect(session.isOnFallback)
        #expect(kinds(session.failbackDue()) == ["probePrimary"])
        #expect(session.failbackDue() == [], "one probe at a time")
        #expect(session.primaryProbeFailed(.unreachable("refused"), at: start + .seconds(301)) == [.scheduleFailback(after: .seconds(300))])
        #expect(session.primaryUnreachableSince == start)
        #expect(kinds(session.failbackDue()) == ["probePrimary"])
        #expect(kinds(session.primaryProbeSucceeded(at: start + .seconds(602))) == ["switchToPrimary(draining)"])
        #expect(!session.isOnFallback)
        #expect(session.primaryUnreachableSince == nil)
        #expect(session.isConnected(since: start + .seconds(602)))
    }

    @Test("a hint from the primary stretches the wait before the next probe")
    func failbackHint() {
        var session = machine(servers: 2, failback: .seconds(60))
        _ = session.started()
        _ = session.connectionFailed(.unreachable("refused"), at: start)
        _ = session.reconnectDelayElapsed()
        _ = session.connectionEstablished(at: start)
        _ = session.failbackDue()
        let action = session.primaryProbeFailed(.serverAskedToWait(.seconds(600), origin: "Retry-After"), at: start)
        guard case .scheduleFailback(let wait)? = (action).first else {
            Issue.record("expected a failback timer")
            return
        }
        #expect(wait >= .seconds(600))
    }

    @Test("no failback when failback_interval is 0, nor on the primary")
    func noFailback() {
        var never = machine(servers: 2, failback: nil)
        _ = never.started()
        _ = never.connectionFailed(.unreachable("refused"), at: start)
        _ = never.reconnectDelayElapsed()
        #expect(kinds(never.connectionEstablished(at: start)) == ["useConnection"])
        #expect(never.failbackDue() == [])
        var primary = machine(servers: 2)
        _ = primary.started()
        #expect(kinds(primary.connectionEstablished(at: start)) == ["useConnection"])
        #expect(primary.failbackDue() == [])
    }

    /// Two servers, connected to the fallback, the primary's probe under way.
    func probingFromFallback() -> Machine {
        var session = machine(servers: 2)
        _ = session.started()
        _ = session.connectionFailed(.unreachable("refused"), at: start)
        _ = session.reconnectDelayElapsed()
        _ = session.connectionEstablished(at: start)
        _ = session.failbackDue()
        return session
    }

    @Test("the fallback lost while the primary's probe runs: the probe's success is taken")
    func fallbackLostDuringProbe() {
        var session = probingFromFallback()
        _ = session.connectionLost(.deadPeer, at: start + .seconds(10))
        #expect(kinds(session.primaryProbeSucceeded(at: start + .seconds(11))) == ["switchToPrimary"])
        #expect(session.isConnected(since: start + .seconds(11)))
    }

    @Test("shutdown or a reload that reconnects abandons the probe, and a reload starts from the primary")
    func shutdownAndReload() {
        var session = probingFromFallback()
        #expect(kinds(session.reloaded(requiresReconnect: true)) == ["discard", "closeConnection(configuration reloaded)"])
        #expect(kinds(session.primaryProbeSucceeded(at: start)) == ["discard"])
        #expect(kinds(session.connectionLost(.reconfigured, at: start)) == ["connect"])
        #expect(session.currentServer == 0)
    }

    @Test("one server behaves as before: a refused token waits reconnect_max")
    func singleServer() {
        var session = machine(servers: 1)
        _ = session.started()
        #expect(delay(session.connectionFailed(.handshakeRejected(status: 403), at: start)) == .seconds(60))
        #expect(session.currentServer == 0)
    }
}
