extension LiveState {
    /// Upserts the single `daemon_state` row; parameters in the order of `bind(to:)`.
    static let upsertSQL = """
        INSERT INTO daemon_state (id, pid, state, server, connected_since, last_heartbeat_at,
            last_push_at, reconnect_attempt, next_attempt_at, last_error, received_total,
            stored_total, duplicate_total, acked_total, connections_total, started_at, updated_at)
        VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT(id) DO UPDATE SET pid = excluded.pid, state = excluded.state,
            server = excluded.server, connected_since = excluded.connected_since,
            last_heartbeat_at = excluded.last_heartbeat_at, last_push_at = excluded.last_push_at,
            reconnect_attempt = excluded.reconnect_attempt, next_attempt_at = excluded.next_attempt_at,
            last_error = excluded.last_error, received_total = excluded.received_total,
            stored_total = excluded.stored_total, duplicate_total = excluded.duplicate_total,
            acked_total = excluded.acked_total, connections_total = excluded.connections_total,
            started_at = excluded.started_at, updated_at = excluded.updated_at
        """

    static let selectSQL = """
        SELECT pid, state, server, connected_since, last_heartbeat_at, last_push_at,
            reconnect_attempt, next_attempt_at, last_error, received_total, stored_total,
            duplicate_total, acked_total, connections_total, started_at, updated_at
        FROM daemon_state WHERE id = 1
        """

    /// Reads the daemon's live state through any connection, read-only ones included
    /// (this is what `intrapush status` uses).
    ///
    /// - Returns: `nil` when no daemon has written its state yet.
    public static func read(from connection: SQLiteConnection) throws -> LiveState? {
        try read(with: connection.prepare(selectSQL))
    }

    static func read(with statement: Statement) throws -> LiveState? {
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return LiveState(
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
        try statement.step()
    }
}
