// SPDX-License-Identifier: Apache-2.0

/// Heartbeat and dead-peer bookkeeping for one open connection (docs/protocol.md, HB-1 to HB-3).
///
/// The daemon sends the heartbeat text and a ping every `heartbeatInterval`, the first one
/// interval after the open. Any frame received proves the peer alive; when nothing has arrived
/// for `deadPeerTimeout` the connection is dead. The machine only reads the instants it is given.
///
/// A connection can also be put to the test: after a network change or a suspend, a
/// ping goes out at once and the connection is dead when nothing at all arrives within
/// `verificationTimeout`, a few seconds, rather than after the whole dead-peer timeout. Time the
/// machine spent asleep does not count against the peer (it could not be heard meanwhile);
/// the verification decides instead.
struct ConnectionLiveness: Sendable {
    typealias Instant = ContinuousClock.Instant

    /// What the connection must do after its timer fired.
    enum Action: Sendable, Equatable {
        /// Send the heartbeat text and a ping, then arm the timer for `wakeAt`.
        case sendHeartbeat(thenWakeAt: Instant)
        /// Send a ping to verify the connection, then arm the timer for `wakeAt`.
        case sendPing(thenWakeAt: Instant)
        /// Nothing is due yet: arm the timer for `wakeAt`.
        case wait(until: Instant)
        /// Nothing arrived for the dead-peer timeout: drop the connection.
        case closeDeadConnection
        /// Nothing answered the verifying ping within `verificationTimeout`: drop the connection.
        case closeUnverifiedConnection
    }

    /// How long a verification waits for any frame: a few seconds, enough for a round trip
    /// over a slow link, far less than the default 30 s dead-peer timeout.
    static let defaultVerificationTimeout: Duration = .seconds(5)

    let heartbeatInterval: Duration
    let deadPeerTimeout: Duration
    let verificationTimeout: Duration
    private(set) var lastFrameReceivedAt: Instant
    private(set) var nextHeartbeatAt: Instant
    private(set) var heartbeatsSent = 0
    /// When the verification in progress started; nil when none is.
    private(set) var verifyingSince: Instant?

    /// The connection opened at `openedAt`; returns when the timer must first fire.
    init(
        heartbeatInterval: Duration, deadPeerTimeout: Duration, openedAt: Instant,
        verificationTimeout: Duration = ConnectionLiveness.defaultVerificationTimeout
    ) {
        self.heartbeatInterval = heartbeatInterval
        self.deadPeerTimeout = deadPeerTimeout
        self.verificationTimeout = verificationTimeout
        self.lastFrameReceivedAt = openedAt
        self.nextHeartbeatAt = openedAt + heartbeatInterval
    }

    /// The instant the timer must fire next.
    var nextWakeUp: Instant {
        let deadline = min(nextHeartbeatAt, lastFrameReceivedAt + deadPeerTimeout)
        guard let verifyingSince else { return deadline }
        return min(deadline, verifyingSince + verificationTimeout)
    }

    /// A frame of any kind (push, pong, echo, close) arrived.
    mutating func frameReceived(at now: Instant) {
        lastFrameReceivedAt = max(lastFrameReceivedAt, now)
        if let since = verifyingSince, now >= since { verifyingSince = nil }
    }

    /// The network changed (or the machine slept): ping now and expect an answer within
    /// `verificationTimeout`. A verification already in progress keeps its earlier deadline.
    mutating func verificationRequested(at now: Instant) -> Action {
        if verifyingSince == nil { verifyingSince = now }
        return .sendPing(thenWakeAt: nextWakeUp)
    }

    /// The timer armed for `nextWakeUp` fired; `slept` is how long the machine was suspended
    /// since the previous wake, when it was (`SuspendDetector`).
    mutating func timerFired(at now: Instant, slept: Duration? = nil) -> Action {
        if let slept {
            // The peer could not be heard while we slept: do not hold that against it; let a
            // ping now decide. Never past `now`, whatever clock the instants come from.
            lastFrameReceivedAt = max(lastFrameReceivedAt, min(now, lastFrameReceivedAt + slept))
            if verifyingSince == nil { verifyingSince = now }
            if now >= nextHeartbeatAt { return heartbeatDue(at: now) }
            return .sendPing(thenWakeAt: nextWakeUp)
        }
        if let since = verifyingSince, now - since >= verificationTimeout {
            return .closeUnverifiedConnection
        }
        if now - lastFrameReceivedAt >= deadPeerTimeout {
            return .closeDeadConnection
        }
        guard now >= nextHeartbeatAt else {
            return .wait(until: nextWakeUp)
        }
        return heartbeatDue(at: now)
    }

    private mutating func heartbeatDue(at now: Instant) -> Action {
        heartbeatsSent += 1
        // Keep the cadence anchored to the open, skipping beats missed by a late timer.
        while nextHeartbeatAt <= now {
            nextHeartbeatAt = nextHeartbeatAt + heartbeatInterval
        }
        return .sendHeartbeat(thenWakeAt: nextWakeUp)
    }
}
