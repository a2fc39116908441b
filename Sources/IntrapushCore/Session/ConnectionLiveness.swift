/// Heartbeat and dead-peer bookkeeping for one open connection (contract section 1).
///
/// The daemon sends the heartbeat text and a ping every `heartbeatInterval`, the first one
/// interval after the open. Any frame received proves the peer alive; when nothing has arrived
/// for `deadPeerTimeout` the connection is dead. The machine only reads the instants it is given.
public struct ConnectionLiveness: Sendable {
    public typealias Instant = ContinuousClock.Instant

    /// What the connection must do after its timer fired.
    public enum Action: Sendable, Equatable {
        /// Send the heartbeat text and a ping, then arm the timer for `wakeAt`.
        case sendHeartbeat(thenWakeAt: Instant)
        /// Nothing is due yet: arm the timer for `wakeAt`.
        case wait(until: Instant)
        /// Nothing arrived for the dead-peer timeout: drop the connection.
        case closeDeadConnection
    }

    public let heartbeatInterval: Duration
    public let deadPeerTimeout: Duration
    public private(set) var lastFrameReceivedAt: Instant
    public private(set) var nextHeartbeatAt: Instant
    public private(set) var heartbeatsSent = 0

    /// The connection opened at `openedAt`; returns when the timer must first fire.
    public init(heartbeatInterval: Duration, deadPeerTimeout: Duration, openedAt: Instant) {
        self.heartbeatInterval = heartbeatInterval
        self.deadPeerTimeout = deadPeerTimeout
        self.lastFrameReceivedAt = openedAt
        self.nextHeartbeatAt = openedAt + heartbeatInterval
    }

    /// The instant the timer must fire next.
    public var nextWakeUp: Instant {
        min(nextHeartbeatAt, lastFrameReceivedAt + deadPeerTimeout)
    }

    /// A frame of any kind (push, pong, echo, close) arrived.
    public mutating func frameReceived(at now: Instant) {
        lastFrameReceivedAt = max(lastFrameReceivedAt, now)
    }

    /// The timer armed for `nextWakeUp` fired.
    public mutating func timerFired(at now: Instant) -> Action {
        if now - lastFrameReceivedAt >= deadPeerTimeout {
            return .closeDeadConnection
        }
        guard now >= nextHeartbeatAt else {
            return .wait(until: nextWakeUp)
        }
        heartbeatsSent += 1
        // Keep the cadence anchored to the open, skipping beats missed by a late timer.
        while nextHeartbeatAt <= now {
            nextHeartbeatAt = nextHeartbeatAt + heartbeatInterval
        }
        return .sendHeartbeat(thenWakeAt: nextWakeUp)
    }
}
