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
        case none
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

    package init(backoff: Backoff, random: Random) {
        self.backoff = backoff
        self.random = random
    }

    package mutating func started() -> Action {
        guard state == .idle else { return .none }
        guard isNetworkAvailable else { return holdForNetwork() }
        state = .connecting
        return .connect
    }

    package mutating func connectionEstablished(at now: Instant) -> Action {
        switch state {
        case .connecting:
            state = .connected(since: now)
            return .none
        case .closing(let thenReconnect):
            // Shutdown or reload arrived while dialling: close what just opened.
            return .closeConnection(reason: thenReconnect ? .reconfigured : .shuttingDown)
        default:
            return .none
        }
    }

    /// A dial ended before the connection opened.
    package mutating func connectionFailed(_ reason: DisconnectReason, at now: Instant) -> Action {
        switch state {
        case .connecting:
            return scheduleRetry(after: reason)
        case .closing(let thenReconnect):
            return finishClosing(thenReconnect: thenReconnect)
        default:
            return .none
        }
    }

    /// An open connection ended (any cause, including a close we asked for).
    package mutating func connectionLost(_ reason: DisconnectReason, at now: Instant) -> Action {
        switch state {
        case .connected(let since):
            if now - since >= backoff.maximum { consecutiveFailures = 0 }
            return scheduleRetry(after: reason)
        case .connecting:
            // The connection's end overtook the dial's success (they travel separately: a push
            // that could not be stored right after the open, say). A failed attempt, then; the
            // success that follows belongs to a superseded dial.
            return scheduleRetry(after: reason)
        case .closing(let thenReconnect):
            return finishClosing(thenReconnect: thenReconnect)
        default:
            return .none
        }
    }

    package mutating func reconnectDelayElapsed() -> Action {
        guard case .waiting = state else { return .none }
        guard isNetworkAvailable else { return holdForNetwork() }
        state = .connecting
        return .connect
    }

    /// SIGTERM/SIGINT: close with 1000 and never reconnect.
    package mutating func shutdownRequested() -> Action {
        switch state {
        case .connected:
            state = .closing(thenReconnect: false)
            return .closeConnection(reason: .shuttingDown)
        case .connecting:
            state = .closing(thenReconnect: false)
            return .cancelConnectAttempt
        case .closing:
            state = .closing(thenReconnect: false)
            return .none
        case .idle, .waiting, .waitingForNetwork:
            state = .stopped
            return .stop
        case .stopped:
            return .none
        }
    }

    /// SIGHUP re-read the configuration; `requiresReconnect` when connection settings changed,
    /// `backoff` from the new `reconnect_min` and `reconnect_max` (the next wait uses it).
    package mutating func reloaded(requiresReconnect: Bool, backoff: Backoff? = nil) -> Action {
        if let backoff { self.backoff = backoff }
        switch state {
        case .connected where requiresReconnect:
            state = .closing(thenReconnect: true)
            return .closeConnection(reason: .reconfigured)
        case .connecting where requiresReconnect:
            state = .closing(thenReconnect: true)
            return .cancelConnectAttempt
        case .waiting:
            // New settings may be the fix (a new token, say): try them now.
            consecutiveFailures = 0
            state = .connecting
            return .connect
        case .waitingForNetwork:
            // Still no route: the new settings are tried once one appears, from a clean count.
            consecutiveFailures = 0
            return holdForNetwork()
        default:
            return .none
        }
    }

    /// A route to the server exists after a link, address or route appeared: a disconnected
    /// session dials at once, skipping its backoff (the failure count stays); an open connection
    /// is verified, since the path it took may have changed.
    package mutating func networkBecameAvailable() -> Action {
        isNetworkAvailable = true
        switch state {
        case .waiting, .waitingForNetwork:
            state = .connecting
            return .connect
        case .connected:
            return .verifyConnection
        default:
            return .none
        }
    }

    /// No usable route to the server any more: stop dialling until one appears. An open
    /// connection is verified (it may survive, over a route the check does not see); a dial in
    /// progress is left to end on its own, and its failure then waits for the network.
    package mutating func networkBecameUnavailable() -> Action {
        isNetworkAvailable = false
        switch state {
        case .waiting:
            return holdForNetwork()
        case .connected:
            return .verifyConnection
        default:
            return .none
        }
    }

    /// Something went away (a link, an address, a route) but a route to the server remains:
    /// an open connection may have lost its path, so it is verified now.
    package mutating func networkChanged() -> Action {
        guard case .connected = state else { return .none }
        return .verifyConnection
    }

    /// The network monitor started before `started()`; without a route, `started()` then waits
    /// for one instead of dialling. Without a monitor this is never called and the network
    /// counts as available: the machine is then the plain backoff described above.
    package mutating func networkWatchStarted(routeAvailable: Bool) {
        assert(state == .idle, "the network watch starts before the session")
        isNetworkAvailable = routeAvailable
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
    package mutating func routeChecked(available: Bool, after change: NetworkChange = []) -> Action {
        switch (isNetworkAvailable, available) {
        case (false, true): return networkBecameAvailable()
        case (true, false): return networkBecameUnavailable()
        case (false, false): return .none
        case (true, true):
            if change.hasAppeared { return networkBecameAvailable() }
            return change.hasDisappeared ? networkChanged() : .none
        }
    }

    /// The periodic look while waiting for the network found no route yet: wait on, and keep
    /// what `intrapush status` shows fresh.
    package mutating func networkRecheckDue() -> Action {
        guard case .waitingForNetwork = state else { return .none }
        return holdForNetwork()
    }

    /// Disconnected and not dialling: a route appearing makes it dial.
    package var isWaitingToDial: Bool {
        switch state {
        case .waiting, .waitingForNetwork: true
        default: false
        }
    }

    private mutating func holdForNetwork() -> Action {
        state = .waitingForNetwork(attempt: consecutiveFailures)
        return .waitForNetwork(attempt: consecutiveFailures, lastFailure: lastFailure)
    }

    private mutating func scheduleRetry(after reason: DisconnectReason) -> Action {
        consecutiveFailures += 1
        lastFailure = reason
        // The failure counts, but without a route a timer would only end in another failure.
        guard isNetworkAvailable else { return holdForNetwork() }
        state = .waiting(attempt: consecutiveFailures)
        let delay: Duration
        if reason.isTokenRejection {
            delay = backoff.maximum
        } else if let hint = reason.retryAfter {
            delay = backoff.delay(afterHint: hint, attempt: consecutiveFailures, using: &random)
        } else {
            delay = backoff.delay(forAttempt: consecutiveFailures, using: &random)
        }
        return .scheduleReconnect(after: delay, attempt: consecutiveFailures, reason: reason)
    }

    private mutating func finishClosing(thenReconnect: Bool) -> Action {
        guard thenReconnect else {
            state = .stopped
            return .stop
        }
        consecutiveFailures = 0
        guard isNetworkAvailable else { return holdForNetwork() }
        state = .connecting
        return .connect
    }
}

extension SessionStateMachine.Action {
    /// The daemon will try the server again: after a loss or a failed attempt, this is what
    /// `intrapush_reconnects_total` counts.
    package var reconnects: Bool {
        switch self {
        case .connect, .scheduleReconnect, .waitForNetwork: true
        case .closeConnection, .cancelConnectAttempt, .verifyConnection, .stop, .none: false
        }
    }
}
