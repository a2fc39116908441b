/// The daemon's connection lifecycle: when to dial, how long to back off, when to stop.
///
/// Reconnects forever after any loss it did not ask for, with `Backoff`; the failure count
/// returns to zero only once a connection stayed open for `reconnect_max`. A handshake answered
/// with 401/403 is retried at the `reconnect_max` pace, never faster. After a close of its own
/// (shutdown) it never reconnects. Pure: every event carries its instant, jitter comes from
/// the injected generator, and the caller performs the returned action.
///
/// Network awareness: while the shell reports no usable route to the server
/// (`networkBecameUnavailable()`), the machine does not dial; it waits in `waitingForNetwork`
/// instead of burning attempts that cannot succeed. A route appearing (`networkBecameAvailable()`)
/// makes a disconnected session dial at once, skipping whatever backoff remains; the failure
/// count is kept, so a server that is still down is retried at the pace it had reached. A change
/// while connected asks for the connection to be verified with a ping rather than trusted until
/// the dead-peer timeout. A shell without a network monitor never reports unavailability, and
/// the machine is then the plain backoff described above.
///
/// More than one server (`host` a list): each attempt that fails, and each connection lost, sends
/// the next attempt to the next server in order (`currentServer`), after the same jittered
/// backoff. A server's retry hint or its refusal of the token holds back that server only: the
/// next one is tried meanwhile. Connected to another than the first (the primary), the machine
/// tries the primary every `failbackInterval` beside the open connection, and switches to it
/// once it is up (`switchToPrimary`: the shell drains and closes the old one with 1000).
package struct SessionStateMachine<Random: RandomNumberGenerator>: Sendable where Random: Sendable {
    package typealias Instant = ContinuousClock.Instant

    package enum Action: Sendable, Equatable {
        /// Dial the server now.
        case connect
        /// Wait `delay`, then report `reconnectDelayElapsed`; `attempt` counts consecutive failures,
        /// `reason` is why the last one failed (for the status line and the log).
        case scheduleReconnect(after: Duration, attempt: Int, reason: DisconnectReason)
        /// Close the open connection with code 1000: `.shuttingDown`, or `.reconfigured` to apply
        /// new settings (reload).
        case closeConnection(reason: DisconnectReason)
        /// Abandon the attempt in progress.
        case cancelConnectAttempt
        /// No route to the server: do not dial; say "waiting for network" until the route comes
        /// back, and look again after a while (`networkRecheckDue`). `attempt` is the failure
        /// count kept meanwhile (0 when nothing failed yet), `lastFailure` the last failure's reason.
        case waitForNetwork(attempt: Int, lastFailure: DisconnectReason?)
        /// The network changed under the open connection: ping now and drop the connection when
        /// nothing comes back within a few seconds.
        case verifyConnection
        /// Leave the run loop: shutdown is complete.
        case stop
        /// Connected to a fallback: try the primary after `delay` (`failbackDue()`).
        case scheduleFailback(after: Duration)
        /// Dial the primary beside the open connection; report `primaryProbeSucceeded` or
        /// `primaryProbeFailed`.
        case probePrimary
        /// The primary is up: it becomes the connection; what the old one received is committed and
        /// acknowledged, then it is closed with 1000.
        case switchToPrimary
        /// A probe that is no longer wanted (shutdown, reload): close or cancel it.
        case abandonProbe
    }


    package enum State: Sendable, Equatable {
        case idle
        case connecting
        case connected(since: Instant)
        case waiting(attempt: Int)
        /// No route to the server: not dialling until one appears.
        case waitingForNetwork(attempt: Int)
        /// Closing a connection of our own; `thenReconnect` when it is a reload, not a shutdown.
        case closing(thenReconnect: Bool)
        case stopped
    }

    package private(set) var state: State = .idle
    /// Consecutive failed attempts (connections that did not stay up `reconnect_max` count too).
    package private(set) var consecutiveFailures = 0
    package private(set) var lastFailure: DisconnectReason?
    /// Whether the shell last reported a usable route to the server; `true` until told otherwise.
    package private(set) var isNetworkAvailable = true
    package private(set) var backoff: Backoff
    private var random: Random
    /// Which server, and when each may be dialled again.
    package private(set) var rotation: ServerRotation
    /// While on a fallback, how often the primary is tried; `nil`: never.
    package private(set) var failbackInterval: Duration?
    /// A dial to the primary runs beside the connection to a fallback.
    package private(set) var isProbingPrimary = false

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

    package mutating func started() -> [Action] {
        guard state == .idle else { return [] }
        guard isNetworkAvailable else { return holdForNetwork() }
        state = .connecting
        return [.connect]
    }

    package mutating func connectionEstablished(at now: Instant) -> [Action] {
        switch state {
        case .connecting:
            state = .connected(since: now)
            rotation.connected()
            guard rotation.isOnFallback else { return [] }
            return failbackInterval.map { [.scheduleFailback(after: $0)] } ?? []
        case .closing(let thenReconnect):
            // Shutdown or reload arrived while dialling: close what just opened.
            return [.closeConnection(reason: thenReconnect ? .reconfigured : .shuttingDown)]
        default:
            return []
        }
    }

    /// A dial ended before the connection opened.
    package mutating func connectionFailed(_ reason: DisconnectReason, at now: Instant) -> [Action] {
        switch state {
        case .connecting:
            return scheduleRetry(after: reason, at: now)
        case .closing(let thenReconnect):
            return finishClosing(thenReconnect: thenReconnect)
        default:
            return []
        }
    }

    /// An open connection ended (any cause, including a close we asked for).
    package mutating func connectionLost(_ reason: DisconnectReason, at now: Instant) -> [Action] {
        switch state {
        case .connected(let since):
            if now - since >= backoff.maximum { consecutiveFailures = 0 }
            return scheduleRetry(after: reason, at: now)
        case .connecting:
            // The connection's end overtook the dial's success (they travel separately: a push
            // that could not be stored right after the open, say). A failed attempt, then; the
            // success that follows belongs to a superseded dial.
            return scheduleRetry(after: reason, at: now)
        case .closing(let thenReconnect):
            return finishClosing(thenReconnect: thenReconnect)
        default:
            return []
        }
    }

    package mutating func reconnectDelayElapsed() -> [Action] {
        guard case .waiting = state else { return [] }
        guard isNetworkAvailable else { return holdForNetwork() }
        state = .connecting
        return [.connect]
    }

    /// The failback timer ran out: try the primary beside the open connection.
    package mutating func failbackDue() -> [Action] {
        guard case .connected = state, rotation.isOnFallback, !isProbingPrimary, failbackInterval != nil else { return [] }
        isProbingPrimary = true
        return [.probePrimary]
    }

    /// The primary answered the probe: it becomes the connection.
    package mutating func primaryProbeSucceeded(at now: Instant) -> [Action] {
        guard isProbingPrimary else { return [.abandonProbe] }
        isProbingPrimary = false
        switch state {
        case .connected, .waiting, .waitingForNetwork:
            // Also when the fallback was lost meanwhile: the primary is up, take it.
            state = .connected(since: now)
            rotation.returnedToPrimary()
            return [.switchToPrimary]
        case .idle, .connecting, .closing, .stopped:
            return [.abandonProbe]
        }
    }

    /// The primary is still unreachable: stay, and try again after `failbackInterval` (or later,
    /// when it asked for a longer wait).
    package mutating func primaryProbeFailed(_ reason: DisconnectReason, at now: Instant) -> [Action] {
        guard isProbingPrimary else { return [] }
        isProbingPrimary = false
        rotation.primaryFailed(at: now)
        guard case .connected = state, rotation.isOnFallback, let interval = failbackInterval else { return [] }
        if let hint = reason.retryAfter {
            return [.scheduleFailback(after: max(interval, backoff.delay(afterHint: hint, attempt: 1, using: &random)))]
        }
        return [.scheduleFailback(after: interval)]
    }

    /// SIGTERM/SIGINT: close with 1000 and never reconnect.
    package mutating func shutdownRequested() -> [Action] {
        isProbingPrimary = false
        switch state {
        case .connected:
            state = .closing(thenReconnect: false)
            return [.closeConnection(reason: .shuttingDown)]
        case .connecting:
            state = .closing(thenReconnect: false)
            return [.cancelConnectAttempt]
        case .closing:
            state = .closing(thenReconnect: false)
            return []
        case .idle, .waiting, .waitingForNetwork:
            state = .stopped
            return [.stop]
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
        if requiresReconnect { isProbingPrimary = false }
        switch state {
        case .connected where requiresReconnect:
            state = .closing(thenReconnect: true)
            return [.closeConnection(reason: .reconfigured)]
        case .connecting where requiresReconnect:
            state = .closing(thenReconnect: true)
            return [.cancelConnectAttempt]
        case .waiting:
            // New settings may be the fix (a new token, say): try them now.
            consecutiveFailures = 0
            state = .connecting
            return [.connect]
        case .waitingForNetwork:
            // Still no route: the new settings are tried once one appears, from a clean count.
            consecutiveFailures = 0
            return holdForNetwork()
        default:
            return []
        }
    }

    /// A route to the server exists after a link, address or route appeared: a disconnected
    /// session dials at once, skipping its backoff (the failure count stays); an open connection
    /// is verified, since the path it took may have changed.
    package mutating func networkBecameAvailable() -> [Action] {
        isNetworkAvailable = true
        switch state {
        case .waiting, .waitingForNetwork:
            state = .connecting
            return [.connect]
        case .connected:
            return [.verifyConnection]
        default:
            return []
        }
    }

    /// No usable route to the server any more: stop dialling until one appears. An open
    /// connection is verified (it may survive, over a route the check does not see); a dial in
    /// progress is left to end on its own, and its failure then waits for the network.
    package mutating func networkBecameUnavailable() -> [Action] {
        isNetworkAvailable = false
        switch state {
        case .waiting:
            return holdForNetwork()
        case .connected:
            return [.verifyConnection]
        default:
            return []
        }
    }

    /// Something went away (a link, an address, a route) but a route to the server remains:
    /// an open connection may have lost its path, so it is verified now.
    package mutating func networkChanged() -> [Action] {
        guard case .connected = state else { return [] }
        return [.verifyConnection]
    }

    /// The network monitor started before `started()`; without a route, `started()` then waits
    /// for one instead of dialling. Without a monitor this is never called and the network
    /// counts as available: the machine is then the plain backoff described above.
    package mutating func networkWatchStarted(routeAvailable: Bool) -> [Action] {
        assert(state == .idle, "the network watch starts before the session")
        isNetworkAvailable = routeAvailable
        return []
    }

    /// A route check found `available`, after the monitor reported `change` (empty for a check
    /// made before a dial, after a reload or on a timer):
    ///
    /// | before      | route now | change                    | as                           |
    /// | ----------- | --------- | ------------------------- | ---------------------------- |
    /// | unavailable | yes       | any                       | `networkBecameAvailable()`   |
    /// | available   | no        | any                       | `networkBecameUnavailable()` |
    /// | available   | yes       | something appeared        | `networkBecameAvailable()`   |
    /// | available   | yes       | only disappearances       | `networkChanged()`           |
    /// | unavailable | no        | any                       | nothing                      |
    ///
    /// A route that appears makes a connected session ping rather than dial, so a flapping
    /// interface costs at most one dial per time it comes back.
    mutating func routeChecked(available: Bool, after change: NetworkChange = []) -> [Action] {
        switch (isNetworkAvailable, available) {
        case (false, true): return networkBecameAvailable()
        case (true, false): return networkBecameUnavailable()
        case (false, false): return []
        case (true, true):
            if change.hasAppeared { return networkBecameAvailable() }
            return change.hasDisappeared ? networkChanged() : []
        }
    }

    /// The periodic look while waiting for the network found no route yet: wait on, and keep
    /// what `intrapush status` shows fresh.
    package mutating func networkRecheckDue() -> [Action] {
        guard case .waitingForNetwork = state else { return [] }
        return holdForNetwork()
    }

    /// Disconnected and not dialling: a route appearing makes it dial.
    package var isWaitingToDial: Bool {
        switch state {
        case .waiting, .waitingForNetwork: true
        default: false
        }
    }

    private mutating func holdForNetwork() -> [Action] {
        state = .waitingForNetwork(attempt: consecutiveFailures)
        return [.waitForNetwork(attempt: consecutiveFailures, lastFailure: lastFailure)]
    }

    private mutating func scheduleRetry(after reason: DisconnectReason, at now: Instant) -> [Action] {
        consecutiveFailures += 1
        lastFailure = reason
        rotation.failed(at: now)
        // The failure counts, but without a route a timer would only end in another failure.
        guard isNetworkAvailable else { return holdForNetwork() }
        state = .waiting(attempt: consecutiveFailures)
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

    private mutating func finishClosing(thenReconnect: Bool) -> [Action] {
        guard thenReconnect else {
            state = .stopped
            return [.stop]
        }
        consecutiveFailures = 0
        rotation.restart()  // new settings start from the primary
        guard isNetworkAvailable else { return holdForNetwork() }
        state = .connecting
        return [.connect]
    }
}
