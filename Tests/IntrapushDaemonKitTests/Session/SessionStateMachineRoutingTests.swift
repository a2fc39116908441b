// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import IntrapushDaemonKit

/// Which dial or connection an event is about is the machine's business: the shell reports every
/// event under the id the machine handed out, and these say what each means.
@Suite("Session state machine: events routed by connection id")
struct SessionStateMachineRoutingTests {
    typealias Machine = SessionStateMachine<FixedRandom>
    let start = ContinuousClock.now

    /// Connected to the fallback (server 1) of two, failback every 300 s; returns the
    /// connection's id.
    func onFallback(_ session: inout Machine) throws -> ConnectionID {
        let first = try #require(session.connectionID(after: session.started()))
        _ = session.connectionFailed(first, .unreachable("refused"), at: start)
        let fallback = try #require(session.connectionID(after: session.reconnectDelayElapsed()))
        #expect(session.connectionEstablished(fallback, at: start) == [.useConnection(fallback), .scheduleFailback(after: .seconds(300))])
        #expect(session.currentServer == 1)
        return fallback
    }

    func machine() -> Machine {
        Machine(backoff: Backoff(minimum: .seconds(1), maximum: .seconds(60)), random: FixedRandom(value: .max),
                serverCount: 2, failbackInterval: .seconds(300))
    }

    func probe(_ actions: [Machine.Action]) -> ConnectionID? {
        guard actions.count == 1, case .probePrimary(let id)? = actions.first else { return nil }
        return id
    }

    @Test("each dial has an id of its own, and the actions name it")
    func idsNamed() throws {
        var session = machine()
        let first = try #require(session.connectionID(after: session.started()))
        #expect(session.started() == [], "started once")
        _ = session.connectionFailed(first, .unreachable("refused"), at: start)
        let second = try #require(session.connectionID(after: session.reconnectDelayElapsed()))
        #expect(first != second)
        #expect(session.state == .connecting(second, failures: 1, routeAvailable: true))
        #expect(session.networkBecameUnavailable() == [], "a dial in progress is left to end")
        _ = session.networkBecameAvailable()
        #expect(session.connectionEstablished(second, at: start).first == .useConnection(second))
        #expect(session.networkChanged() == [.verifyConnection(second)])
        #expect(session.shutdownRequested() == [.closeConnection(second, reason: .shuttingDown)])
    }

    @Test("a stale probe's events: a success is discarded, a failure or an end changes nothing")
    func staleProbe() throws {
        var session = machine()
        let fallback = try onFallback(&session)
        let stale = try #require(probe(session.failbackDue()))
        // A reload that reconnects lets the probe go.
        #expect(session.reloaded(requiresReconnect: true) == [.discard(stale), .closeConnection(fallback, reason: .reconfigured)])
        let before = session.state
        #expect(session.connectionFailed(stale, .unreachable("refused"), at: start) == [])
        #expect(session.connectionLost(stale, .deadPeer, at: start) == [])
        #expect(session.connectionEstablished(stale, at: start) == [.discard(stale)])
        #expect(session.state == before, "still closing the fallback for the reload")
    }

    @Test("a probe that succeeds during a reload is not taken; the reload dials the primary")
    func probeSucceedsDuringReload() throws {
        var session = machine()
        let fallback = try onFallback(&session)
        let primaryProbe = try #require(probe(session.failbackDue()))
        _ = session.reloaded(requiresReconnect: true)
        #expect(session.connectionEstablished(primaryProbe, at: start + .seconds(1)) == [.discard(primaryProbe)])
        let after = session.connectionLost(fallback, .reconfigured, at: start + .seconds(2))
        let redial = try #require(session.connectionID(after: after))
        #expect(after == [.connect(redial, server: 0)], "new settings start from the primary")
        #expect(redial != primaryProbe)
    }

    @Test("a fallback lost while probing: the probe, once up, is the connection")
    func fallbackLostWhileProbing() throws {
        var session = machine()
        let fallback = try onFallback(&session)
        let primaryProbe = try #require(probe(session.failbackDue()))
        let lost = session.connectionLost(fallback, .deadPeer, at: start + .seconds(400))
        #expect(lost.count == 1)
        guard case .scheduleReconnect? = lost.first else { Issue.record("\(lost)"); return }
        #expect(session.probeID == primaryProbe, "the probe goes on")
        #expect(session.connectionEstablished(primaryProbe, at: start + .seconds(401)) == [.switchToPrimary(from: nil, to: primaryProbe)])
        #expect(session.state == .connected(primaryProbe, since: start + .seconds(401), failback: .none, failures: 1, routeAvailable: true))
        #expect(!session.isOnFallback && session.primaryUnreachableSince == nil)
        #expect(session.reconnectDelayElapsed() == [], "the backoff's timer is void once connected")
    }

    @Test("switched to the primary: the drained fallback's end starts nothing; the primary's does")
    func drainedFallback() throws {
        var session = machine()
        let fallback = try onFallback(&session)
        let primaryProbe = try #require(probe(session.failbackDue()))
        #expect(session.connectionEstablished(primaryProbe, at: start + .seconds(300)) == [.switchToPrimary(from: fallback, to: primaryProbe)])
        #expect(session.connectionLost(fallback, .returnedToPrimary, at: start + .seconds(301)) == [])
        #expect(session.openConnectionID == primaryProbe)
        let lost = session.connectionLost(primaryProbe, .deadPeer, at: start + .seconds(302))
        guard case .scheduleReconnect? = lost.first else { Issue.record("\(lost)"); return }
    }

    @Test("events of an id never handed out change nothing")
    func unknownIDs() throws {
        var session = machine()
        let dial = try #require(session.connectionID(after: session.started()))
        let stranger = ConnectionID(number: 999)
        #expect(session.connectionFailed(stranger, .unreachable("refused"), at: start) == [])
        #expect(session.connectionLost(stranger, .deadPeer, at: start) == [])
        #expect(session.connectionEstablished(stranger, at: start) == [.discard(stranger)])
        #expect(session.state == .connecting(dial, failures: 0, routeAvailable: true))
    }
}
