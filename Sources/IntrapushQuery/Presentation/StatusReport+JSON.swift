import IntrapushInterface
import IntrapushSupport
extension StatusReport {
    /// `status --json`: one object; times RFC 3339 like `--json` elsewhere, absent ones null.
    package func json() -> String {
        var output = "{\"running\":\(liveness == .running || liveness == .unresponsive)"
        output += ",\"liveness\":\"\(liveness.rawValue)\""
        func time(_ key: String, _ value: Int64?) {
            output += ",\"\(key)\":" + (value.map { "\"\(Timestamp.rfc3339(milliseconds: $0))\"" } ?? "null")
        }
        func text(_ key: String, _ value: String?) {
            output += ",\"\(key)\":"
            if let value { JSONText.appendQuoted(value, to: &output) } else { output += "null" }
        }
        func number(_ key: String, _ value: Int64?) {
            output += ",\"\(key)\":" + (value.map { String($0) } ?? "null")
        }
        text("version", daemonVersion)
        text("state", state?.state.rawValue)
        number("pid", state?.pid.map { Int64($0) })
        text("server", state?.server)
        output += ",\"fallback\":" + (state.map { $0.primaryServer != nil ? "true" : "false" } ?? "null")
        text("primary_server", state?.primaryServer)
        time("primary_unreachable_since", state?.primaryUnreachableSince)
        time("connected_since", state?.connectedSince)
        time("last_heartbeat_at", state?.lastHeartbeatAt)
        time("last_push_at", state?.lastPushAt)
        number("reconnect_attempt", state.map { Int64($0.reconnectAttempt) })
        time("next_attempt_at", state?.nextAttemptAt)
        text("last_error", state?.lastError)
        number("received_total", state?.receivedTotal)
        number("stored_total", state?.storedTotal)
        number("duplicate_total", state?.duplicateTotal)
        number("acked_total", state?.ackedTotal)
        number("connections_total", state?.connectionsTotal)
        time("started_at", state?.startedAt)
        time("updated_at", state?.updatedAt)
        output += ",\"retention\":{"
        output += "\"days\":" + (state?.retentionDays.map { String($0) } ?? "null")
        number("max_rows", state?.retentionMaxRows.map { Int64($0) })
        time("last_prune_at", state?.lastPruneAt)
        number("pruned_total", state?.prunedTotal)
        output += "},\"hook\":{"
        output += "\"runs\":" + (state.map { String($0.hookRuns) } ?? "null")
        number("failures", state?.hookFailures)
        number("timeouts", state?.hookTimeouts)
        number("dropped", state?.hookDropped)
        output += "}"
        output += ",\"database\":{"
        output += "\"path\":"
        JSONText.appendQuoted(database.path, to: &output)
        output += ",\"size_bytes\":\(database.sizeBytes),\"notifications\":\(database.notifications)"
        output += ",\"unread\":\(database.unread)}"
        output += ",\"outbox_waiting\":\(database.outboxWaiting),\"outbox_oldest_queued_at\":"
        output += database.outboxOldestQueuedAt.map { "\"" + Timestamp.rfc3339(milliseconds: $0) + "\"" } ?? "null"
        time("commit_running_since", state?.commitRunningSince)  // keys are added at the end
        output += "}\n"
        return output
    }
}
