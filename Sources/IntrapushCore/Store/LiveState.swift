/// What the daemon is doing right now, as kept in the single row of `daemon_state` for
/// `intrapush status`.
///
/// All times are Unix milliseconds. `server` must already be redacted by the caller (the token
/// segment as `***`): the store writes it as given.
public struct LiveState: Sendable, Equatable {
    /// The connection's state, stored as text; values this build does not know read back as-is.
    public struct State: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let connecting = State(rawValue: "connecting")
        public static let connected = State(rawValue: "connected")
        public static let reconnecting = State(rawValue: "reconnecting")
        /// The server refused the token (HTTP 401/403).
        public static let rejected = State(rawValue: "rejected")
        /// No route to the server: not dialling until the network comes back.
        public static let waitingForNetwork = State(rawValue: "waiting-for-network")
        public static let stopped = State(rawValue: "stopped")

        public var description: String { rawValue }
    }

    public var pid: Int32?
    public var state: State
    /// The server's URL with the token shown as `***`.
    public var server: String?
    public var connectedSince: Int64?
    public var lastHeartbeatAt: Int64?
    public var lastPushAt: Int64?
    /// Consecutive failed attempts; 0 while connected.
    public var reconnectAttempt: Int
    public var nextAttemptAt: Int64?
    /// The last error, as shown to the operator; never contains the token.
    public var lastError: String?
    public var receivedTotal: Int64
    public var storedTotal: Int64
    public var duplicateTotal: Int64
    public var ackedTotal: Int64
    public var connectionsTotal: Int64
    public var startedAt: Int64?
    public var updatedAt: Int64
    /// The retention policy the daemon applies (`retention_days`, `retention_max_rows`; 0 is no
    /// limit); `nil` when the daemon that wrote the row did not say (an older intrapushd).
    public var retentionDays: Int?
    public var retentionMaxRows: Int?
    /// When a prune batch last ran. Written by `NotificationStore.pruneBatch` in its own
    /// transaction, never by a live-state write: reading fills it, writing leaves the stored value.
    public var lastPruneAt: Int64?
    /// Rows pruned since the database was created; owned by the pruner like `lastPruneAt`.
    public var prunedTotal: Int64
    /// The `on_notification` hook since the daemon started: commands run, those that exited
    /// non-zero or could not start, those killed for running too long, and notifications dropped
    /// from a full queue without a run.
    public var hookRuns: Int64
    public var hookFailures: Int64
    public var hookTimeouts: Int64
    public var hookDropped: Int64

    public init(
        pid: Int32? = nil,
        state: State,
        server: String? = nil,
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
