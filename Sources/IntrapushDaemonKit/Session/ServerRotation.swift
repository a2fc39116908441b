// SPDX-License-Identifier: Apache-2.0

/// Which of the servers `host` names the session dials, and when each may be dialled again.
///
/// The first server is the primary. A failure (an attempt that did not open, a connection
/// lost) moves to the next server in order, after the usual backoff; what a server asked for
/// (its retry hint, or its refusal of the token: the slowest pace) holds back that server only,
/// and when every server is held back the one free first is dialled when it is. Pure: instants
/// and the backoff's jittered delay come from the caller.
package struct ServerRotation: Sendable, Equatable {
    package typealias Instant = ContinuousClock.Instant

    package private(set) var serverCount: Int
    /// The server of the open connection, the dial in progress or the next dial.
    package private(set) var current = 0
    /// Per server: not dialled before this instant.
    private var notBefore: [Instant?]
    /// Since when the primary has not been reachable; `nil` while it is, or was never tried.
    package private(set) var primaryUnreachableSince: Instant?

    package init(serverCount: Int) {
        self.serverCount = max(1, serverCount)
        notBefore = Array(repeating: nil, count: self.serverCount)
    }

    /// Connected, or dialling, to another server than the primary.
    package var isOnFallback: Bool { current != 0 }

    /// A connection to the current server opened: nothing holds it back any more.
    package mutating func connected() {
        notBefore[current] = nil
        if current == 0 { primaryUnreachableSince = nil }
    }

    /// The current server failed at `now` (an attempt that did not open, a connection lost).
    package mutating func failed(at now: Instant) {
        if current == 0, primaryUnreachableSince == nil { primaryUnreachableSince = now }
    }

    /// After a failure: `heldBack` is what the server asked for, `backoffDelay` the attempt's
    /// jittered wait (needed with one server only when nothing was asked for). Moves on to the
    /// next server that may be dialled, and returns how long to wait before dialling it.
    package mutating func next(at now: Instant, heldBack: Duration?, backoffDelay: Duration?) -> Duration {
        guard serverCount > 1 else { return heldBack ?? backoffDelay ?? .zero }
        notBefore[current] = heldBack.map { now + $0 }
        let delay = backoffDelay ?? .zero
        let order = (1...serverCount).map { (current + $0) % serverCount }
        if let ready = order.first(where: { server in notBefore[server].map { $0 <= now + delay } ?? true }) {
            current = ready
            return delay
        }
        // Every server is held back: the one free first, when it is.
        let free = order.compactMap { server in notBefore[server].map { (server, $0) } }.min { $0.1 < $1.1 }
        guard let (server, instant) = free else { return delay }
        current = server
        return max(delay, now.duration(to: instant))
    }

    /// A dial to the primary beside a fallback's connection failed at `now`.
    package mutating func primaryFailed(at now: Instant) {
        if primaryUnreachableSince == nil { primaryUnreachableSince = now }
    }

    /// The primary's dial beside a fallback opened: it is the server now.
    package mutating func returnedToPrimary() {
        current = 0
        notBefore[0] = nil
        primaryUnreachableSince = nil
    }

    /// New settings: from the primary again. Another list of servers forgets what the old ones
    /// asked for.
    package mutating func restart(serverCount newCount: Int? = nil) {
        current = 0
        guard let newCount, max(1, newCount) != serverCount else { return }
        self = ServerRotation(serverCount: newCount)
    }
}
