// SPDX-License-Identifier: Apache-2.0

/// What the daemon is doing right now, as kept in the single row of `daemon_state` for
/// `intrapush status`.
///
/// All times are Unix milliseconds. `server` must already be redacted by the caller (the token
/// segment as `***`): the store writes it as given.
package struct LiveState: Sendable, Equatable {
    /// The connection's state, stored as text; values this build does not know read back as-is.
    package struct State: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        package let rawValue: String
        package init(rawValue: String) { self.rawValue = rawValue }

        package static let connecting = State(rawValue: "connecting")
        package static let connected = State(rawValue: "connected")
        package static let reconnecting = State(rawValue: "reconnecting")
        /// The server refused the token (HTTP 401/403).
        package static let rejected = State(rawValue: "rejected")
        /// No route to the server: not dialling until the network comes back.
        package static let waitingForNetwork = State(rawValue: "waiting-for-network")
        package static let stopped = State(rawValue: "stopped")
        /// Every state the daemon is ever in.
        package static let known: [State] = [.connecting, .connected, .reconnecting, .rejected, .waitingForNetwork, .stopped]

        package var description: String { rawValue }
    }

    package var pid: Int32?
    package var state: State
    /// The server's URL with the token shown as `***`.
    package var server: String?
    package var connectedSince: Int64?
    package var lastHeartbeatAt: Int64?
    package var lastPushAt: Int64?
    /// Consecutive failed attempts; 0 while connected.
    package var reconnectAttempt: Int
    package var nextAttemptAt: Int64?
    /// The last error, as shown to the operator; never contains the token.
    package var lastError: String?
    package var receivedTotal: Int64
    package var storedTotal: Int64
    package var duplicateTotal: Int64
    package var ackedTotal: Int64
    package var connectionsTotal: Int64
    package var startedAt: Int64?
    package var updatedAt: Int64
    /// The retention policy the daemon applies (`retention_days`, `retention_max_rows`; 0 is no
    /// limit); `nil` when the daemon that wrote the row did not say (an older intrapushd).
    package var retentionDays: Int?
    package var retentionMaxRows: Int?
    /// When a prune batch last ran. Written by `NotificationStore.pruneBatch` in its own
    /// transaction, never by a live-state write: reading fills it, writing leaves the stored value.
    package var lastPruneAt: Int64?
    /// Rows pruned since the database was created; owned by the pruner like `lastPruneAt`.
    package var prunedTotal: Int64
    /// The `on_notification` hook since the daemon started: commands run, those that exited
    /// non-zero or could not start, those killed for running too long, and notifications dropped
    /// from a full queue without a run.
    package var hookRuns: Int64
    package var hookFailures: Int64
    package var hookTimeouts: Int64
    package var hookDropped: Int64
    /// On a fallback server (`host` a list): the primary's URL, token as `***`; `nil` on the
    /// primary. With `primaryUnreachableSince`, known to the running daemon only (not in the row).
    package var primaryServer: String? = nil
    package var primaryUnreachableSince: Int64? = nil
    /// This host's identity as the server is told it (`Intrapush-Host`). Known to the running
    /// daemon only.
    package var hostID: String? = nil
    /// When the database write under way began, while it has not finished for a second or more
    /// (a stalled disk): pushes wait unacknowledged. Known to the running daemon only.
    package var commitRunningSince: Int64? = nil

    package init(
        pid: Int32? = nil,
        state: State,
        server: String? = nil,
        hostID: String? = nil,
        connectedSince: Int64? = nil,
        lastHeartbeatAt: Int64? = nil,
        lastPushAt: Int64? = nil,
        reconnectAttempt: Int = 0,
        nextAttemptAt: Int64? = nil,
        lastError: String? = nil,
        receivedTotal: Int64 = 0,
        storedTotal: Int64 = 0,
        duplicateTotal: Int64 = 0,
        ackedTotal: Int64 = 0,
        connectionsTotal: Int64 = 0,
        startedAt: Int64? = nil,
        updatedAt: Int64,
        retentionDays: Int? = nil,
        retentionMaxRows: Int? = nil,
        lastPruneAt: Int64? = nil,
        prunedTotal: Int64 = 0,
        hookRuns: Int64 = 0,
        hookFailures: Int64 = 0,
        hookTimeouts: Int64 = 0,
        hookDropped: Int64 = 0
    ) {
        self.pid = pid
        self.state = state
        self.server = server
        self.hostID = hostID
        self.connectedSince = connectedSince
        self.lastHeartbeatAt = lastHeartbeatAt
        self.lastPushAt = lastPushAt
        self.reconnectAttempt = reconnectAttempt
        self.nextAttemptAt = nextAttemptAt
        self.lastError = lastError
        self.receivedTotal = receivedTotal
        self.storedTotal = storedTotal
        self.duplicateTotal = duplicateTotal
        self.ackedTotal = ackedTotal
        self.connectionsTotal = connectionsTotal
        self.startedAt = startedAt
        self.updatedAt = updatedAt
        self.retentionDays = retentionDays
        self.retentionMaxRows = retentionMaxRows
        self.lastPruneAt = lastPruneAt
        self.prunedTotal = prunedTotal
        self.hookRuns = hookRuns
        self.hookFailures = hookFailures
        self.hookTimeouts = hookTimeouts
        self.hookDropped = hookDropped
    }
}
