// SPDX-License-Identifier: Apache-2.0

/// The daemon's connection lifecycle: when to dial, how long to back off, when to stop.
///
/// Reconnects forever after any loss it did not ask for, with `Backoff`; the failure count
/// returns to zero only once a connection stayed open for `reconnect_max`. A handshake answered
/// with 401/403 is retried at the `reconnect_max` pace, never faster. After a close of its own
/// (shutdown) it never reconnects. Pure: every event carries its instant, jitter comes from
/// the injected generator, and the caller performs the returned actions, in order.
///
/// Every dial gets a `ConnectionID` from the machine, and every action about a dial or a
/// connection names it; the shell reports each dial's and connection's events under that id,
/// and the machine alone decides what an event of an id it no longer waits for means (a late
/// success is discarded, a late end changes nothing).
///
/// Network awareness: while the shell reports no usable route to the server, the machine does
/// not dial; it waits in `waitingForNetwork` instead of burning attempts that cannot succeed. A
/// route appearing makes a disconnected session dial at once, skipping whatever backoff remains;
/// the failure count is kept. A change while connected asks for the connection to be verified.
///
/// More than one server (`host` a list): which one is `ServerRotation`'s. Connected to another
/// than the first (the primary), the machine tries the primary every `failbackInterval` beside
/// the open connection (`Failback.probing`), and switches to it once it is up: the shell drains
/// and closes the old one with 1000.
package struct SessionStateMachine<Random: RandomNumberGenerator>: Sendable where Random: Sendable {
    package typealias Instant = ContinuousClock.Instant

    package enum Action: Sendable, Equatable {
        /// Dial `server` now; report the dial's events as `id`.
        case connect(ConnectionID, server: Int)
        /// The connection `id` is the session's: say so (status, live state).
        case useConnection(ConnectionID)
        /// Wait `delay`, then report `reconnectDelayElapsed`; `attempt` counts consecutive failures,
        /// `reason` is why the last one failed (for the status line and the log).
        case scheduleReconnect(after: Duration, attempt: Int, reason: DisconnectReason)
        /// Close connection `id` with code 1000 once what it received is committed and
        /// acknowledged: `.shuttingDown`, or `.reconfigured` to apply new settings (reload).
        case closeConnection(ConnectionID, reason: DisconnectReason)
        /// Abandon the dial `id`.
        case cancelConnectAttempt(ConnectionID)
        /// A dial nobody waits for any more opened (or is still under way): close or cancel it,
        /// without a word to the server.
        case discard(ConnectionID)
        /// No route to the server: do not dial; say "waiting for network" until the route comes
        /// back, and look again after a while (`networkRecheckDue`). `attempt` is the failure
        /// count kept meanwhile (0 when nothing failed yet), `lastFailure` the last failure's reason.
        case waitForNetwork(attempt: Int, lastFailure: DisconnectReason?)
        /// The network changed under connection `id`: ping now and drop it when nothing comes
        /// back within a few seconds.
        case verifyConnection(ConnectionID)
        /// Leave the run loop: shutdown is complete.
        case stop
        /// Connected to a fallback: try the primary after `delay` (`failbackDue()`).
        case scheduleFailback(after: Duration)
        /// Dial the primary beside the open connection, as `id`.
        case probePrimary(ConnectionID)
        /// The primary's dial `to` is up: it is the connection now; `from`, the fallback's (if it
        /// is still open), commits and acknowledges what it received, then closes with 1000.
        case switchToPrimary(from: ConnectionID?, to: ConnectionID)
    }

    /// Where the session is, with what each state needs to go on: the failures counted so far,
    /// and whether the shell last reported a route to the server (`routeAvailable`; waiting
    /// implies one, waiting for the network none).
    package enum State: Sendable, Equatable {
        case idle(routeAvailable: Bool)
        /// Dialling the rotation's current server; `failures` before this dial.
        case connecting(ConnectionID, failures: Int, routeAvailable: Bool)
        /// `failures` is kept until the connection has stayed up `reconnect_max`.
        case connected(ConnectionID, since: Instant, failback: Failback, failures: Int, routeAvailable: Bool)
        /// Waiting out the backoff after failure number `attempt`, which was `lastFailure`; `probe`:
        /// the primary's dial of a fallback lost meanwhile, still under way (it becomes the
        /// connection if it opens first).
        case waiting(attempt: Int, lastFailure: DisconnectReason, probe: ConnectionID?)
        /// No route to the server: not dialling until one appears (`attempt` 0 when nothing failed).
        case waitingForNetwork(attempt: Int, lastFailure: DisconnectReason?, probe: ConnectionID?)
        /// Closing a connection of our own (`isOpen`), or abandoning our own dial; `thenReconnect`
        /// when it is a reload, not a shutdown.
        case closing(ConnectionID, isOpen: Bool, thenReconnect: Bool, routeAvailable: Bool)
        case stopped
    }

    /// On a fallback, returning to the primary.
    package enum Failback: Sendable, Equatable {
        /// On the primary, or no `failback_interval`: nothing to try.
        case none
        /// The primary is tried when `failbackDue()` comes.
        case scheduled
        /// The primary's dial runs beside the open connection.
        case probing(ConnectionID)
    }

    package internal(set) var state: State = .idle(routeAvailable: true)
    package internal(set) var backoff: Backoff
    var random: Random
    /// Hands out the ids of dials: injected like the randomness, so that the machine holds no
    /// counter of its own.
    var connectionIDs: ConnectionID.Generator
    /// Which server, and when each may be dialled again.
    package internal(set) var rotation: ServerRotation
    /// While on a fallback, how often the primary is tried; `nil`: never.
    package internal(set) var failbackInterval: Duration?

    package init(
        backoff: Backoff, random: Random, serverCount: Int = 1, failbackInterval: Duration? = nil,
        connectionIDs: ConnectionID.Generator = ConnectionID.Generator()
    ) {
        self.backoff = backoff
        self.random = random
        self.connectionIDs = connectionIDs
        self.rotation = ServerRotation(serverCount: serverCount)
        self.failbackInterval = failbackInterval
    }

    /// The server the open connection, the dial in progress or the next dial is to.
    package var currentServer: Int { rotation.current }
    package var serverCount: Int { rotation.serverCount }
    /// Connected, or dialling, to another server than the primary.
    package var isOnFallback: Bool { rotation.isOnFallback }
    package var primaryUnreachableSince: Instant? { rotation.primaryUnreachableSince }

    /// The session's connection while it is open (closing included), or its dial while one runs.
    package var connectionID: ConnectionID? {
        switch state {
        case .connecting(let id, _, _), .connected(let id, _, _, _, _), .closing(let id, _, _, _): id
        case .idle, .waiting, .waitingForNetwork, .stopped: nil
        }
    }

    /// The session's open connection (closing included).
    package var openConnectionID: ConnectionID? {
        switch state {
        case .connected(let id, _, _, _, _), .closing(let id, isOpen: true, _, _): id
        default: nil
        }
    }

    /// The primary's dial beside a fallback, while it runs.
    package var probeID: ConnectionID? {
        switch state {
        case .connected(_, _, .probing(let id), _, _), .waiting(_, _, let id?), .waitingForNetwork(_, _, let id?): id
        default: nil
        }
    }

    /// Consecutive failed attempts (connections that did not stay up `reconnect_max` count too).
    package var consecutiveFailures: Int {
        switch state {
        case .connecting(_, let failures, _), .connected(_, _, _, let failures, _): failures
        case .waiting(let attempt, _, _), .waitingForNetwork(let attempt, _, _): attempt
        case .idle, .closing, .stopped: 0
        }
    }

    /// Why the last attempt failed, while the session waits to try again.
    package var lastFailure: DisconnectReason? {
        switch state {
        case .waiting(_, let reason, _): reason
        case .waitingForNetwork(_, let reason, _): reason
        default: nil
        }
    }

    /// Whether the shell last reported a usable route to the server; `true` until told otherwise.
    package var isNetworkAvailable: Bool {
        switch state {
        case .idle(let available), .connecting(_, _, let available), .connected(_, _, _, _, let available),
            .closing(_, _, _, let available):
            available
        case .waiting, .stopped: true
        case .waitingForNetwork: false
        }
    }

    package mutating func started() -> [Action] {
        guard case .idle(let routeAvailable) = state else { return [] }
        guard routeAvailable else { return holdForNetwork(attempt: 0, lastFailure: nil, probe: nil) }
        return dial(failures: 0)
    }

    package mutating func reconnectDelayElapsed() -> [Action] {
        // Waiting implies a route: without one the machine waits for the network instead.
        guard case .waiting(let attempt, _, let probe) = state else { return [] }
        // A probe still under way is let go: the session dials where the rotation says.
        return (probe.map { [.discard($0)] } ?? []) + dial(failures: attempt)
    }

    /// SIGTERM/SIGINT: close with 1000 and never reconnect.
    package mutating func shutdownRequested() -> [Action] {
        let abandoned = probeID.map { [Action.discard($0)] } ?? []
        switch state {
        case .connected(let id, _, _, _, let routeAvailable):
            state = .closing(id, isOpen: true, thenReconnect: false, routeAvailable: routeAvailable)
            return abandoned + [.closeConnection(id, reason: .shuttingDown)]
        case .connecting(let id, _, let routeAvailable):
            state = .closing(id, isOpen: false, thenReconnect: false, routeAvailable: routeAvailable)
            return [.cancelConnectAttempt(id)]
        case .closing(let id, let isOpen, _, let routeAvailable):
            state = .closing(id, isOpen: isOpen, thenReconnect: false, routeAvailable: routeAvailable)
            return []
        case .idle, .waiting, .waitingForNetwork:
            state = .stopped
            return abandoned + [.stop]
        case .stopped:
            return []
        }
    }

    /// SIGHUP re-read the configuration; `requiresReconnect` when connection settings changed,
    /// `backoff` from the new `reconnect_min` and `reconnect_max` (the next wait uses it).
    package mutating func reloaded(
        requiresReconnect: Bool, backoff: Backoff? = nil, serverCount: Int? = nil, failbackInterval: Duration?? = nil
    ) -> [Action] {
        if let backoff { self.backoff = backoff }
        if let failbackInterval { self.failbackInterval = failbackInterval }
        if let serverCount, max(1, serverCount) != rotation.serverCount {
            // Another list of servers always reconnects (the shell compares them): from the primary.
            rotation.restart(serverCount: serverCount)
        }
        let abandoned = requiresReconnect ? probeID.map { [Action.discard($0)] } ?? [] : []
        switch state {
        case .connected(let id, _, _, _, let routeAvailable) where requiresReconnect:
            state = .closing(id, isOpen: true, thenReconnect: true, routeAvailable: routeAvailable)
            return abandoned + [.closeConnection(id, reason: .reconfigured)]
        case .connecting(let id, _, let routeAvailable) where requiresReconnect:
            state = .closing(id, isOpen: false, thenReconnect: true, routeAvailable: routeAvailable)
            return [.cancelConnectAttempt(id)]
        case .waiting(_, _, let probe):
            // New settings may be the fix (a new token, say): try them now, from a clean count;
            // the dial replaces a probe still under way.
            return (probe.map { [.discard($0)] } ?? []) + dial(failures: 0)
        case .waitingForNetwork(_, let lastFailure, let probe):
            // Still no route: the new settings are tried once one appears, from a clean count.
            return abandoned + holdForNetwork(attempt: 0, lastFailure: lastFailure, probe: requiresReconnect ? nil : probe)
        default:
            return []
        }
    }

    /// Disconnected and not dialling: a route appearing makes it dial.
    package var isWaitingToDial: Bool {
        switch state {
        case .waiting, .waitingForNetwork: true
        default: false
        }
    }

    // MARK: Helpers of the events

    /// A new dial to the rotation's current server, after `failures` (a dial needs a route).
    mutating func dial(failures: Int) -> [Action] {
        let id = connectionIDs.next()
        state = .connecting(id, failures: failures, routeAvailable: true)
        return [.connect(id, server: rotation.current)]
    }

    mutating func opened(_ id: ConnectionID, at now: Instant, failures: Int, routeAvailable: Bool) {
        let failback: Failback = rotation.isOnFallback && failbackInterval != nil ? .scheduled : .none
        state = .connected(id, since: now, failback: failback, failures: failures, routeAvailable: routeAvailable)
    }

    mutating func holdForNetwork(attempt: Int, lastFailure: DisconnectReason?, probe: ConnectionID?) -> [Action] {
        state = .waitingForNetwork(attempt: attempt, lastFailure: lastFailure, probe: probe)
        return [.waitForNetwork(attempt: attempt, lastFailure: lastFailure)]
    }

    /// One more failure after `failures`.
    mutating func scheduleRetry(
        after reason: DisconnectReason, at now: Instant, failures: Int, routeAvailable: Bool, probe: ConnectionID? = nil
    ) -> [Action] {
        let attempt = failures + 1
        rotation.failed(at: now)
        // The failure counts, but without a route a timer would only end in another failure.
        guard routeAvailable else { return holdForNetwork(attempt: attempt, lastFailure: reason, probe: probe) }
        state = .waiting(attempt: attempt, lastFailure: reason, probe: probe)
        let heldBack: Duration?
        if reason.isTokenRejection {
            heldBack = backoff.maximum
        } else if let hint = reason.retryAfter {
            heldBack = backoff.delay(afterHint: hint, attempt: attempt, using: &random)
        } else {
            heldBack = nil
        }
        // With one server a wait it asked for replaces the backoff; with more, the next one is
        // tried after the usual backoff, so that a fleet leaving a dead server arrives at the next
        // one spread out.
        let jittered = rotation.serverCount > 1 || heldBack == nil
            ? backoff.delay(forAttempt: attempt, using: &random) : nil
        let delay = rotation.next(at: now, heldBack: heldBack, backoffDelay: jittered)
        return [.scheduleReconnect(after: delay, attempt: attempt, reason: reason)]
    }

    mutating func finishClosing(thenReconnect: Bool, routeAvailable: Bool) -> [Action] {
        guard thenReconnect else {
            state = .stopped
            return [.stop]
        }
        rotation.restart()  // new settings start from the primary, from a clean count
        guard routeAvailable else { return holdForNetwork(attempt: 0, lastFailure: nil, probe: nil) }
        return dial(failures: 0)
    }
}

/// Names one dial of the session, and the connection it becomes.
package struct ConnectionID: Hashable, Sendable, CustomStringConvertible {
    package let number: Int

    package init(number: Int) {
        self.number = number
    }

    package var description: String { "#\(number)" }
}

extension ConnectionID {
    /// A supply of fresh ids, one after another.
    package struct Generator: Sendable {
        private var last = 0

        package init() {}

        package mutating func next() -> ConnectionID {
            last += 1
            return ConnectionID(number: last)
        }
    }
}
