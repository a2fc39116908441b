// SPDX-License-Identifier: Apache-2.0

import IntrapushSupport
import IntrapushInterface
import IntrapushStore
extension StatusReport {
    /// The human report: a headline that answers "is it working?", then one field per line.
    package func text(useColor: Bool) -> String {
        var lines = [headline(useColor: useColor)]
        func field(_ label: String, _ value: String) {
            lines.append(label + ":" + String(repeating: " ", count: max(1, 16 - label.count)) + value)
        }
        if let daemonVersion { field("Version", "intrapushd \(TerminalText.sanitized(daemonVersion))") }
        if let state {
            if let since = state.commitRunningSince, liveness == .running {
                let seconds = max(1, (now - since) / 1000)
                field("Stalled", "a database write has been running for \(seconds) s without finishing; "
                    + "pushes wait unacknowledged until it does: check the disk")
            }
            if let server = state.server { field("Server", TerminalText.sanitized(server)) }
            if let hostID = state.hostID { field("Host identity", TerminalText.sanitized(hostID)) }
            if let primary = state.primaryServer {
                let since = state.primaryUnreachableSince.map { " since \(describe($0))" } ?? ""
                field("Fallback", "the primary \(TerminalText.sanitized(primary)) is unreachable\(since)")
            }
            field("Last heartbeat", state.lastHeartbeatAt.map(describe) ?? "none yet")
            field("Last push", state.lastPushAt.map(describe) ?? "none yet")
            if state.reconnectAttempt > 0 || state.nextAttemptAt != nil {
                var retry = "attempt \(state.reconnectAttempt)"
                if let next = state.nextAttemptAt, liveness == .running {
                    retry += ", next try \(RelativeTime.describe(milliseconds: next, now: now))"
                }
                field("Reconnect", retry)
            }
            if let error = state.lastError { field("Last error", TerminalText.sanitized(error)) }
            field("Counters", "\(state.receivedTotal) received, \(state.storedTotal) stored, "
                + "\(state.duplicateTotal) duplicates, \(state.ackedTotal) acknowledged, "
                + "\(state.connectionsTotal) connection\(state.connectionsTotal == 1 ? "" : "s")"
                + (state.startedAt.map { " since \(describe($0))" } ?? ""))
            if let retention = retentionLine(state) { field("Retention", retention) }
            if let hook = hookLine(state) { field("Hook", hook) }
        }
        field("Database", database.path)
        field("Size", Self.formatBytes(database.sizeBytes))
        field("Notifications", "\(database.notifications) (\(database.unread) unread)")
        if let oldest = database.outboxOldestQueuedAt {
            field("Outbox", "\(database.outboxWaiting) waiting for the server, the oldest queued \(describe(oldest))")
        } else {
            field("Outbox", "nothing waiting for the server")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    func headline(useColor: Bool) -> String {
        let (text, color): (String, String) = {
            guard let state, liveness != .neverRan else {
                return ("intrapushd has not run against this database yet", "33")
            }
            let updated = "\(Timestamp.local(milliseconds: state.updatedAt)), "
                + RelativeTime.describe(milliseconds: state.updatedAt, now: now)
            switch liveness {
            case .notRunning, .neverRan:  // .neverRan comes only without a state, answered above
                if state.state == .stopped { return ("intrapushd is not running (stopped \(updated))", "33") }
                return ("intrapushd is not running (last state \"\(state.state)\" at \(updated); it did not stop cleanly)", "31")
            case .unresponsive:
                return ("intrapushd (pid \(state.pid ?? 0)) does not answer: it may be stopped or hung (last saved state \(updated))", "31")
            case .running:
                return (runningHeadline(state), state.state == .connected ? "32" : "33")
            }
        }()
        return useColor ? "\u{1B}[1;\(color)m\(text)\u{1B}[0m" : text
    }

    private func runningHeadline(_ state: LiveState) -> String {
        let pid = state.pid.map { " (pid \($0))" } ?? ""
        switch state.state {
        case .connected:
            return "intrapushd\(pid) is connected" + (state.connectedSince.map { " since \(describe($0))" } ?? "")
        case .rejected:
            return "intrapushd\(pid) is running, but the server rejects its token"
        case .waitingForNetwork:
            return "intrapushd\(pid) is running, waiting for network (no route to the server)"
        default:
            return "intrapushd\(pid) is running, \(state.state)"
        }
    }

    /// The policy, when pruning last ran and what it removed; `nil` for a daemon that reports
    /// none of it (an older intrapushd).
    func retentionLine(_ state: LiveState) -> String? {
        guard state.retentionDays != nil || state.lastPruneAt != nil || state.prunedTotal > 0 else { return nil }
        var parts: [String] = []
        if let days = state.retentionDays, let rows = state.retentionMaxRows {
            parts.append(RetentionPolicy.describe(days: days, maximumRows: rows))
        }
        parts.append(state.lastPruneAt.map { "last pruned \(describe($0))" } ?? "not pruned yet")
        parts.append("\(state.prunedTotal) removed in total")
        return parts.joined(separator: "; ")
    }

    /// The on_notification hook's counters, shown once it has run or dropped anything.
    func hookLine(_ state: LiveState) -> String? {
        guard state.hookRuns > 0 || state.hookDropped > 0 else { return nil }
        return "\(state.hookRuns) run\(state.hookRuns == 1 ? "" : "s"), \(state.hookFailures) failed, "
            + "\(state.hookTimeouts) timed out, \(state.hookDropped) dropped"
    }

    func describe(_ milliseconds: Int64) -> String {
        RelativeTime.withLocalTime(milliseconds: milliseconds, now: now)
    }

    static func formatBytes(_ bytes: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        if unit == 0 { return "\(bytes) B" }
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10) \(units[unit])"
    }
}
