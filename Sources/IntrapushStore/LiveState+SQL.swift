extension LiveState {
    /// Upserts the single `daemon_state` row; parameters in the order of `bind(to:)`.
    ///
    /// `last_prune_at` and `pruned_total` are left out on purpose: the pruner writes them in the
    /// transaction of each DELETE, so they survive restarts and a stale copy cannot undo them.
    static let upsertSQL = """
        INSERT INTO daemon_state (id, pid, state, server, connected_since, last_heartbeat_at,
            last_push_at, reconnect_attempt, next_attempt_at, last_error, received_total,
            stored_total, duplicate_total, acked_total, connections_total, started_at, updated_at,
            retention_days, retention_max_rows, hook_runs, hook_failures, hook_timeouts, hook_dropped)
        VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT(id) DO UPDATE SET pid = excluded.pid, state = excluded.state,
            server = excluded.server, connected_since = excluded.connected_since,
            last_heartbeat_at = excluded.last_heartbeat_at, last_push_at = excluded.last_push_at,
            reconnect_attempt = excluded.reconnect_attempt, next_attempt_at = excluded.next_attempt_at,
            last_error = excluded.last_error, received_total = excluded.received_total,
            stored_total = excluded.stored_total, duplicate_total = excluded.duplicate_total,
            acked_total = excluded.acked_total, connections_total = excluded.connections_total,
            started_at = excluded.started_at, updated_at = excluded.updated_at,
            retention_days = excluded.retention_days, retention_max_rows = excluded.retention_max_rows,
            hook_runs = excluded.hook_runs, hook_failures = excluded.hook_failures,
            hook_timeouts = excluded.hook_timeouts, hook_dropped = excluded.hook_dropped
        """

    /// The columns every schema version has (1 and 2), in the order `read(with:)` expects.
    private static let baseColumns = """
        pid, state, server, connected_since, last_heartbeat_at, last_push_at,
            reconnect_attempt, next_attempt_at, last_error, received_total, stored_total,
            duplicate_total, acked_total, connections_total, started_at, updated_at
        """
    private static let baseColumnCount = 16

    static let selectSQL = """
        SELECT \(baseColumns), retention_days, retention_max_rows, last_prune_at, pruned_total,
            hook_runs, hook_failures, hook_timeouts, hook_dropped
        FROM daemon_state WHERE id = 1
        """

    /// For a database the daemon has not migrated to version 3 yet (a new CLI, an old daemon).
    static let selectBeforeVersion3SQL = "SELECT \(baseColumns) FROM daemon_state WHERE id = 1"

    /// Reads the daemon's live state through any connection, read-only ones included
    /// (this is what `intrapush status` uses). A database of an older schema version reads with
    /// the newer fields at their defaults.
    ///
    /// - Returns: `nil` when no daemon has written its state yet.
    package static func read(from connection: SQLiteConnection) throws -> LiveState? {
        let sql = try connection.userVersion() >= 3 ? selectSQL : selectBeforeVersion3SQL
        return try read(with: connection.prepare(sql))
    }

    static func read(with statement: Statement) throws -> LiveState? {
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        var state = LiveState(
            pid: statement.optionalInt64(at: 0).map { Int32(truncatingIfNeeded: $0) },
            state: State(rawValue: statement.string(at: 1) ?? ""),
            server: statement.string(at: 2),
            connectedSince: statement.optionalInt64(at: 3),
            lastHeartbeatAt: statement.optionalInt64(at: 4),
            lastPushAt: statement.optionalInt64(at: 5),
            reconnectAttempt: Int(statement.int64(at: 6)),
            nextAttemptAt: statement.optionalInt64(at: 7),
            lastError: statement.string(at: 8),
            receivedTotal: statement.int64(at: 9),
            storedTotal: statement.int64(at: 10),
            duplicateTotal: statement.int64(at: 11),
            ackedTotal: statement.int64(at: 12),
            connectionsTotal: statement.int64(at: 13),
            startedAt: statement.optionalInt64(at: 14),
            updatedAt: statement.int64(at: 15)
        )
        guard statement.columnCount > baseColumnCount else { return state }
        let base = baseColumnCount
        state.retentionDays = statement.optionalInt64(at: base).map { Int($0) }
        state.retentionMaxRows = statement.optionalInt64(at: base + 1).map { Int($0) }
        state.lastPruneAt = statement.optionalInt64(at: base + 2)
        state.prunedTotal = statement.int64(at: base + 3)
        state.hookRuns = statement.int64(at: base + 4)
        state.hookFailures = statement.int64(at: base + 5)
        state.hookTimeouts = statement.int64(at: base + 6)
        state.hookDropped = statement.int64(at: base + 7)
        return state
    }

    /// Writes this state through a statement prepared from `upsertSQL`.
    func write(with statement: Statement) throws {
        defer { statement.reset() }
        try statement.bind(pid.map { Int64($0) }, at: 1)
        try statement.bind(state.rawValue, at: 2)
        try statement.bind(server, at: 3)
        try statement.bind(connectedSince, at: 4)
        try statement.bind(lastHeartbeatAt, at: 5)
        try statement.bind(lastPushAt, at: 6)
        try statement.bind(Int64(reconnectAttempt), at: 7)
        try statement.bind(nextAttemptAt, at: 8)
        try statement.bind(lastError, at: 9)
        try statement.bind(receivedTotal, at: 10)
        try statement.bind(storedTotal, at: 11)
        try statement.bind(duplicateTotal, at: 12)
        try statement.bind(ackedTotal, at: 13)
        try statement.bind(connectionsTotal, at: 14)
        try statement.bind(startedAt, at: 15)
        try statement.bind(updatedAt, at: 16)
        try statement.bind(retentionDays.map { Int64($0) }, at: 17)
        try statement.bind(retentionMaxRows.map { Int64($0) }, at: 18)
        try statement.bind(hookRuns, at: 19)
        try statement.bind(hookFailures, at: 20)
        try statement.bind(hookTimeouts, at: 21)
        try statement.bind(hookDropped, at: 22)
        try statement.step()
    }
}
