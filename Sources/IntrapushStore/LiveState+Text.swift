/// The live state as the daemon tells it through its local API (`intrapush status` asks):
/// one `name=value` line per field that has a value, names as in the `daemon_state` row.
///
/// The daemon keeps its live state in memory and writes the row only when something worth keeping
/// happened, so a heartbeat costs no disk write; a running daemon is asked instead.
extension LiveState {
    package var text: String {
        var lines: [String] = []
        func add(_ name: String, _ value: (any CustomStringConvertible)?) {
            guard let value else { return }
            // Values are single lines; a newline in an error message would end the field early.
            lines.append("\(name)=\(String(describing: value).replacing("\n", with: " "))")
        }
        add("pid", pid)
        add("state", state.rawValue)
        add("server", server)
        add("connected_since", connectedSince)
        add("last_heartbeat_at", lastHeartbeatAt)
        add("last_push_at", lastPushAt)
        add("reconnect_attempt", reconnectAttempt)
        add("next_attempt_at", nextAttemptAt)
        add("last_error", lastError)
        add("received_total", receivedTotal)
        add("stored_total", storedTotal)
        add("duplicate_total", duplicateTotal)
        add("acked_total", ackedTotal)
        add("connections_total", connectionsTotal)
        add("started_at", startedAt)
        add("updated_at", updatedAt)
        add("retention_days", retentionDays)
        add("retention_max_rows", retentionMaxRows)
        add("last_prune_at", lastPruneAt)
        add("pruned_total", prunedTotal)
        add("hook_runs", hookRuns)
        add("hook_failures", hookFailures)
        add("hook_timeouts", hookTimeouts)
        add("hook_dropped", hookDropped)
        add("primary_server", primaryServer)
        add("primary_unreachable_since", primaryUnreachableSince)
        return lines.joined(separator: "\n") + "\n"
    }

    /// Reads `text`; `nil` without the two fields every state has. Unknown names are skipped, so an
    /// older CLI reads a newer daemon's answer.
    package init?(text: String) {
        var fields: [Substring: Substring] = [:]
        for line in text.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            fields[line[..<equals]] = line[line.index(after: equals)...]
        }
        func int64(_ name: Substring) -> Int64? { fields[name].flatMap { Int64($0) } }
        func int(_ name: Substring) -> Int? { fields[name].flatMap { Int($0) } }
        guard let state = fields["state"], let updatedAt = int64("updated_at") else { return nil }
        self.init(
            pid: fields["pid"].flatMap { Int32($0) },
            state: State(rawValue: String(state)),
            server: fields["server"].map(String.init),
            connectedSince: int64("connected_since"),
            lastHeartbeatAt: int64("last_heartbeat_at"),
            lastPushAt: int64("last_push_at"),
            reconnectAttempt: int("reconnect_attempt") ?? 0,
            nextAttemptAt: int64("next_attempt_at"),
            lastError: fields["last_error"].map(String.init),
            receivedTotal: int64("received_total") ?? 0,
            storedTotal: int64("stored_total") ?? 0,
            duplicateTotal: int64("duplicate_total") ?? 0,
            ackedTotal: int64("acked_total") ?? 0,
            connectionsTotal: int64("connections_total") ?? 0,
            startedAt: int64("started_at"),
            updatedAt: updatedAt,
            retentionDays: int("retention_days"),
            retentionMaxRows: int("retention_max_rows"),
            lastPruneAt: int64("last_prune_at"),
            prunedTotal: int64("pruned_total") ?? 0,
            hookRuns: int64("hook_runs") ?? 0,
            hookFailures: int64("hook_failures") ?? 0,
            hookTimeouts: int64("hook_timeouts") ?? 0,
            hookDropped: int64("hook_dropped") ?? 0
        )
        primaryServer = fields["primary_server"].map(String.init)
        primaryUnreachableSince = int64("primary_unreachable_since")
    }
}
