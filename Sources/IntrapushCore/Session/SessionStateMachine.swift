/// The daemon's connection lifecycle: when to dial, how long to back off, when to stop.
///
/// Reconnects forever after any loss it did not ask for, with `Backoff`; the failure count
/// returns to zero only once a connection stayed open for `reconnect_max`. A handshake answered
/// with 401/403 is retried at the `reconnect_max` pace, never faster. After a close of its own
/// (shutdown) it never reconnects. Pure: every event carries its instant, jitter comes from
/// the injected generator, and the caller performs the returned action.
public struct SessionStateMachine<Random: RandomNumberGenerator>: Sendable where Random: Sendable {
    public typealias Instant = ContinuousClock.Instant

    public enum Action: Sendable, Equatable {
        /// Dial the server now.
        case connect
        /// Wait `delay`, then report `reconnectDelayElapsed`; `attempt` counts consecutive failures.
        case scheduleReconnect(after: Duration, attempt: Int)
        /// Close the open connection with code 1000 (shutdown) or to apply new settings (reload).
        case closeConnection
        /// Abandon the attempt in progress.
        case cancelConnectAttempt
        /// Leave the run loop: shutdown is complete.
        case stop
        case none
    }

    public enum State: Sendable, Equatable {
        case idle
        case connecting
        case connected(since: Instant)
        case waiting(attempt: Int)
        /// Closing a connection of our own; `thenReconnect` when it is a reload, not a shutdown.
        case closing(thenReconnect: Bool)
        case stopped
    }

    public private(set) var state: State = .idle
    /// Consecutive failed attempts (connections that did not stay up `reconnect_max` count too).
    public private(set) var consecutiveFailures = 0
    public private(set) var lastFailure: DisconnectReason?
    public var backoff: Backoff
    private var random: Random

    public init(backoff: Backoff, random: Random) {
        self.backoff = backoff
        self.random = random
    }

    public mutating func started() -> Action {
        guard state == .idle else { return .none }
        state = .connecting
        return .connect
    }

    public mutating func connectionEstablished(at now: Instant) -> Action {
        switch state {
        case .connecting:
            state = .connected(since: now)
            return .none
        case .closing:
            // Shutdown or reload arrived while dialling: close what just opened.
            return .closeConnection
        default:
            return .none
        }
    }

    /// A dial ended before the connection opened.
    public mutating func connectionFailed(_ reason: DisconnectReason, at now: Instant) -> Action {
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
    public mutating func connectionLost(_ reason: DisconnectReason, at now: Instant) -> Action {
        switch state {
        case .connected(let since):
            if now - since >= backoff.maximum { consecutiveFailures = 0 }
            return scheduleRetry(after: reason)
        case .closing(let thenReconnect):
            return finishClosing(thenReconnect: thenReconnect)
        default:
            return .none
        }
    }

    public mutating func reconnectDelayElapsed() -> Action {
        guard case .waiting = state else { return .none }
        state = .connecting
        return .connect
    }

    /// SIGTERM/SIGINT: close with 1000 and never reconnect.
    public mutating func shutdownRequested() -> Action {
        switch state {
        case .connected:
            state = .closing(thenReconnect: false)
            return .closeConnection
        case .connecting:
            state = .closing(thenReconnect: false)
            return .cancelConnectAttempt
        case .closing:
            state = .closing(thenReconnect: false)
            return .none
        case .idle, .waiting:
            state = .stopped
            return .stop
        case .stopped:
            return .none
        }
    }

    /// SIGHUP re-read the configuration; `requiresReconnect` when connection settings changed.
    public mutating func reloaded(requiresReconnect: Bool) -> Action {
        switch state {
        case .connected where requiresReconnect:
            state = .closing(thenReconnect: true)
            return .closeConnection
        case .connecting where requiresReconnect:
            state = .closing(thenReconnect: true)
            return .cancelConnectAttempt
        case .waiting:
            // New settings may be the fix (a new token, say): try them now.
            consecutiveFailures = 0
            state = .connecting
            return .connect
        default:
            return .none
        }
    }

    /// A link, address or route appeared: a waiting daemon dials at once, skipping its backoff.
    public mutating func networkBecameAvailable() -> Action {
        guard case .waiting = state else { return .none }
        state = .connecting
        return .connect
    }

    private mutating func scheduleRetry(after reason: DisconnectReason) -> Action {
        consecutiveFailures += 1
        lastFailure = reason
        state = .waiting(attempt: consecutiveFailures)
        let delay =
            reason.isTokenRejection
            ? backoff.maximum
            : backoff.delay(forAttempt: consecutiveFailures, using: &random)
        return .scheduleReconnect(after: delay, attempt: consecutiveFailures)
    }

    private mutating func finishClosing(thenReconnect: Bool) -> Action {
        guard thenReconnect else {
            state = .stopped
            return .stop
        }
        consecutiveFailures = 0
        state = .connecting
        return .connect
    }
}
