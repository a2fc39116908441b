// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import IntrapushConfiguration
@testable import IntrapushDaemonKit

@Suite("Session state machine: waiting for network, dialling when it returns, verifying on changes")
struct SessionStateMachineNetworkTests {
    typealias Machine = SessionStateMachine<FixedRandom>
    let start = ContinuousClock.now

    /// Jitter fixed at its top: every delay is exactly the ceiling d (30 s, 60 s, 60 s…).
    func machine() -> Machine {
        Machine(backoff: Backoff(minimum: .seconds(30), maximum: .seconds(60)), random: FixedRandom(value: .max))
    }

    @Test("without a route at start, the session waits for the network instead of dialling")
    func noRouteAtStart() {
        var session = machine()
        session.networkWatchStarted(routeAvailable: false)
        #expect(session.started() == [.waitForNetwork(attempt: 0, lastFailure: nil)])
        #expect(session.state == .waitingForNetwork(attempt: 0, lastFailure: nil, probe: nil))
        #expect(kinds(session.networkBecameAvailable()) == ["connect"])
        #expect(session.isDialling)
    }

    @Test("a route appearing during the backoff dials at once and keeps the failure count")
    func backoffSkipped() {
        var session = machine()
        _ = session.started()
        #expect(session.connectionFailed(.unreachable("refused"), at: start) == [.scheduleReconnect(after: .seconds(30), attempt: 1, reason: .unreachable("refused"))])
        #expect(session.connectionFailed(.unreachable("refused"), at: start) == [])  // not dialling
        #expect(kinds(session.networkBecameAvailable()) == ["connect"])
        #expect(session.consecutiveFailures == 1)
        // The server is still down: the next wait is attempt 2's, not attempt 1's again.
        #expect(session.connectionFailed(.unreachable("refused"), at: start) == [.scheduleReconnect(after: .seconds(60), attempt: 2, reason: .unreachable("refused"))])
        // The timer of the skipped wait is void once the session dialled.
        #expect(kinds(session.networkBecameAvailable()) == ["connect"])
        #expect(session.reconnectDelayElapsed() == [])
    }

    @Test("losing the route during the backoff holds dialling; the timer firing then does nothing")
    func routeLostWhileWaiting() {
        var session = machine()
        _ = session.started()
        _ = session.connectionFailed(.timedOut, at: start)
        #expect(session.networkBecameUnavailable() == [.waitForNetwork(attempt: 1, lastFailure: .timedOut)])
        #expect(session.reconnectDelayElapsed() == [])
        #expect(session.state == .waitingForNetwork(attempt: 1, lastFailure: .timedOut, probe: nil))
    }

    @Test("a connection lost without a route counts as a failure and waits for the network")
    func lostWithoutRoute() {
        var session = machine()
        _ = session.started()
        _ = session.connectionEstablished(at: start)
        #expect(kinds(session.networkBecameUnavailable()) == ["verifyConnection"])
        #expect(session.isConnected(since: start))
        #expect(session.connectionLost(.deadPeer, at: start + .seconds(5)) == [.waitForNetwork(attempt: 1, lastFailure: .deadPeer)])
        #expect(kinds(session.networkBecameAvailable()) == ["connect"])
    }

    @Test("a dial under way when the route goes is left to end; its failure waits for the network")
    func dialInProgress() {
        var session = machine()
        _ = session.started()
        #expect(session.networkBecameUnavailable() == [])
        #expect(session.isDialling)
        #expect(session.connectionFailed(.unreachable("network unreachable"), at: start)
            == [.waitForNetwork(attempt: 1, lastFailure: .unreachable("network unreachable"))])
    }

    @Test("more network changes while a dial is under way leave it alone")
    func changesDuringDial() {
        var session = machine()
        _ = session.networkBecameUnavailable()
        _ = session.started()
        #expect(kinds(session.networkBecameAvailable()) == ["connect"])
        #expect(session.networkBecameAvailable() == [])
        #expect(session.networkChanged() == [])
        #expect(session.isDialling)
    }

    @Test("network changes while connected verify the connection; while dialling they do nothing")
    func changesWhileConnected() {
        var session = machine()
        _ = session.started()
        #expect(session.networkChanged() == [])
        _ = session.connectionEstablished(at: start)
        #expect(kinds(session.networkChanged()) == ["verifyConnection"])
        #expect(kinds(session.networkBecameAvailable()) == ["verifyConnection"])
    }

    @Test("shutdown while waiting for the network stops at once")
    func shutdownWhileWaitingForNetwork() {
        var session = machine()
        _ = session.networkBecameUnavailable()
        _ = session.started()
        #expect(session.shutdownRequested() == [.stop])
        #expect(session.networkBecameAvailable() == [])
    }

    @Test("a reload while waiting for the network resets the count but still does not dial")
    func reloadWithoutRoute() {
        var session = machine()
        _ = session.started()
        _ = session.connectionFailed(.timedOut, at: start)
        _ = session.networkBecameUnavailable()
        #expect(session.reloaded(requiresReconnect: true) == [.waitForNetwork(attempt: 0, lastFailure: .timedOut)])
        #expect(session.consecutiveFailures == 0)
    }

    @Test("a reload that closes the connection while the route is gone waits instead of redialling")
    func reconfigureWithoutRoute() {
        var session = machine()
        _ = session.started()
        _ = session.connectionEstablished(at: start)
        _ = session.networkBecameUnavailable()
        #expect(kinds(session.reloaded(requiresReconnect: true)) == ["closeConnection(\(.reconfigured as DisconnectReason))"])
        #expect(session.connectionLost(.reconfigured, at: start) == [.waitForNetwork(attempt: 0, lastFailure: nil)])
    }

    @Test("the route coming back while the backoff runs, as the route checks report it")
    func withRouteChecks() {
        var session = machine()
        _ = session.started()
        _ = session.connectionFailed(.unreachable("refused"), at: start)
        #expect(session.routeChecked(available: false, after: [.linkDown, .routeRemoved])
            == [.waitForNetwork(attempt: 1, lastFailure: .unreachable("refused"))])
        #expect(session.networkRecheckDue() == [.waitForNetwork(attempt: 1, lastFailure: .unreachable("refused"))])
        #expect(session.routeChecked(available: false) == [])
        #expect(kinds(session.routeChecked(available: true, after: [.linkUp, .routeAdded])) == ["connect"])
        #expect(session.networkRecheckDue() == [])
    }

    /// The table of `routeChecked`'s doc comment, row by row, on a connected session.
    @Test("route checks: what each combination of before, now and change amounts to")
    func routeCheckTable() {
        var session = machine()
        _ = session.started()
        _ = session.connectionEstablished(at: start)
        #expect(kinds(session.routeChecked(available: true, after: .addressAdded)) == ["verifyConnection"])  // appeared
        #expect(kinds(session.routeChecked(available: true, after: .addressRemoved)) == ["verifyConnection"])  // disappeared
        #expect(session.routeChecked(available: true) == [])
        #expect(kinds(session.routeChecked(available: false, after: [.linkDown])) == ["verifyConnection"])  // became unavailable
        #expect(!session.isNetworkAvailable)
        #expect(session.routeChecked(available: false, after: .linkUp) == [])
        #expect(kinds(session.routeChecked(available: true, after: .routeAdded)) == ["verifyConnection"])  // became available
        #expect(session.isNetworkAvailable)
    }

    @Test("the status line says the daemon waits for the network")
    func statusLine() throws {
        let configuration = try ConfigurationLoader(environment: [
            "INTRAPUSH_HOST": "push.corp:8080", "INTRAPUSH_ORG": "acme", "INTRAPUSH_TOKEN": "secret",
        ], defaultFile: "/nonexistent/intrapush.conf").load(explicitPath: nil, purpose: .daemon).configuration
        #expect(StatusLine.waitingForNetwork(to: configuration) == "waiting for network: no route to push.corp:8080")
    }
}

@Suite("Session state machine: event order")
struct SessionStateMachineOrderTests {
    /// A connection that ends before its dial's success is reported must not leave the session
    /// "connected" to nothing: it counts as a failed attempt and is retried.
    @Test("a connection lost before its dial reported success is retried")
    func lostBeforeEstablished() throws {
        var session = SessionStateMachine(backoff: Backoff(minimum: .seconds(1), maximum: .seconds(60)), random: FixedRandom(value: .max))
        let start = ContinuousClock.now
        let dial = try #require(session.connectionID(after: session.started()))
        #expect(session.connectionLost(dial, .storeFailed("refused"), at: start) == [.scheduleReconnect(after: .seconds(1), attempt: 1, reason: .storeFailed("refused"))])
        #expect(session.connectionEstablished(dial, at: start) == [.discard(dial)], "the late success is closed, not taken")
        #expect(session.state == .waiting(attempt: 1, lastFailure: .storeFailed("refused"), probe: nil))
    }
}
