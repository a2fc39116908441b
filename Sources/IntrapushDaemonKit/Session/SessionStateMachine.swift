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

    package enum State: Sendable, Equatable {
        case idle
        /// Dialling the rotation's current server.
        case connecting(ConnectionID)
        case connected(ConnectionID, since: Instant, failback: Failback)
        /// Waiting out the backoff; `probe`: the primary's dial of a fallback lost meanwhile, still
        /// under way (it becomes the connection if it opens first).
        case waiting(attempt: Int, probe: ConnectionID?)
        /// No route to the server: not dialling until one appears.
        case waitingForNetwork(attempt: Int, probe: ConnectionID?)
        /// Closing a connection of our own (`isOpen`), or abandoning our own dial; `thenReconnect`
        /// when it is a reload, not a shutdown.
        case closing(ConnectionID, isOpen: Bool, thenReconnect: Bool)
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

    package internal(set) var state: State = .idle
    /// Consecutive failed attempts (connections that did not stay up `reconnect_max` count too).
    package internal(set) var consecutiveFailures = 0
    package internal(set) var lastFailure: DisconnectReason?
    /// Whether the shell last reported a usable route to the server; `true` until told otherwise.
    package internal(set) var isNetworkAvailable = true
    package internal(set) var backoff: Backoff
    var random: Random
    /// Which server, and when each may be dialled again.
    package internal(set) var rotation: ServerRotation
    /// While on a fallback, how often the primary is tried; `nil`: never.
    package internal(set) var failbackInterval: Duration?
    /// The last id handed out.
    private var lastID = 0

    package init(backoff: Backoff, random: Random, serverCount: Int = 1, failbackInterval: Duration? = nil) {
        self.backoff = backoff
        self.random = random
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
        case .connecting(let id), .connected(let id, _, _), .closing(let id, _, _): id
        case .idle, .waiting, .waitingForNetwork, .stopped: nil
        }
    }

    /// The session's open connection (closing included).
    package var openConnectionID: ConnectionID? {
        switch state {
        case .connected(let id, _, _), .closing(let id, isOpen: true, _): id
        default: nil
        }
    }

    /// The primary's dial beside a fallback, while it runs.
    package var probeID: ConnectionID? {
        switch state {
        case .connected(_, _, .probing(let id)), .waiting(_, let id?), .waitingForNetwork(_, let id?): id
        default: nil
        }
    }

    package mutating func started() -> [Action] {
        guard state == .idle else { return [] }
        guard isNetworkAvailable else { return holdForNetwork(probe: nil) }
        return dial()
    }

    package mutating func reconnectDelayElapsed() -> [Action] {
        guard case .waiting(_, let probe) = state else { return [] }
        guard isNetworkAvailable else { return holdForNetwork(probe: probe) }
        // A probe still under way is let go: the session dials where the rotation says.
        return (probe.map { [.discard($0)] } ?? []) + dial()
    }

    /// SIGTERM/SIGINT: close with 1000 and never reconnect.
    package mutating func shutdownRequested() -> [Action] {
        let abandoned = probeID.map { [Action.discard($0)] } ?? []
        switch state {
        case .connected(let id, _, _):
            state = .closing(id, isOpen: true, thenReconnect: false)
            return abandoned + [.closeConnection(id, reason: .shuttingDown)]
        case .connecting(let id):
            state = .closing(id, isOpen: false, thenReconnect: false)
            return [.cancelConnectAttempt(id)]
        case .closing(let id, let isOpen, _):
            state = .closing(id, isOpen: isOpen, thenReconnect: false)
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
        case .connected(let id, _, _) where requiresReconnect:
            state = .closing(id, isOpen: true, thenReconnect: true)
            return abandoned + [.closeConnection(id, reason: .reconfigured)]
        case .connecting(let id) where requiresReconnect:
            state = .closing(id, isOpen: false, thenReconnect: true)
            return [.cancelConnectAttempt(id)]
        case .waiting:
            // New settings may be the fix (a new token, say): try them now.
            consecutiveFailures = 0
            return abandoned + dial()
        case .waitingForNetwork:
            // Still no route: the new settings are tried once one appears, from a clean count.
            consecutiveFailures = 0
            return abandoned + holdForNetwork(probe: requiresReconnect ? nil : probeID)
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

    /// A new dial to the rotation's current server.
    mutating func dial() -> [Action] {
        lastID += 1
        let id = ConnectionID(number: lastID)
        state = .connecting(id)
        return [.connect(id, server: rotation.current)]
    }

    /// A new id for the primary's dial beside the connection.
    mutating func newProbeID() -> ConnectionID {
        lastID += 1
        return ConnectionID(number: lastID)
    }

    mutating func opened(_ id: ConnectionID, at now: Instant) {
        state = .connected(id, since: now, failback: rotation.isOnFallback && failbackInterval != nil ? .scheduled : .none)
    }

    mutating func holdForNetwork(probe: ConnectionID?) -> [Action] {
        state = .waitingForNetwork(attempt: consecutiveFailures, probe: probe)
        return [.waitForNetwork(attempt: consecutiveFailures, lastFailure: lastFailure)]
    }

    mutating func scheduleRetry(after reason: DisconnectReason, at now: Instant, probe: ConnectionID? = nil) -> [Action] {
        consecutiveFailures += 1
        lastFailure = reason
        rotation.failed(at: now)
        // The failure counts, but without a route a timer would only end in another failure.
        guard isNetworkAvailable else { return holdForNetwork(probe: probe) }
        state = .waiting(attempt: consecutiveFailures, probe: probe)
        let heldBack: Duration?
        if reason.isTokenRejection {
            heldBack = backoff.maximum
        } else if let hint = reason.retryAfter {
            heldBack = backoff.delay(afterHint: hint, attempt: consecutiveFailures, using: &random)
        } else {
            heldBack = nil
        }
        // With one server a wait it asked for replaces the backoff; with more, the next one is
        // tried after the usual backoff, so that a fleet leaving a dead server arrives at the next
        // one spread out.
        let jittered = rotation.serverCount > 1 || heldBack == nil
            ? backoff.delay(forAttempt: consecutiveFailures, using: &random) : nil
        let delay = rotation.next(at: now, heldBack: heldBack, backoffDelay: jittered)
        return [.scheduleReconnect(after: delay, attempt: consecutiveFailures, reason: reason)]
    }

    mutating func finishClosing(thenReconnect: Bool) -> [Action] {
        guard thenReconnect else {
            state = .stopped
            return [.stop]
        }
        consecutiveFailures = 0
        rotation.restart()  // new settings start from the primary
        guard isNetworkAvailable else { return holdForNetwork(probe: nil) }
        return dial()
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
