// SPDX-License-Identifier: Apache-2.0

import IntrapushInterface
import IntrapushStore
import Prometheus

/// The metrics that mirror `intrapush status --json`, set from a `StatusReport` before each
/// rendering. Counters are set by reset and increment: only the renderer touches them, one
/// rendering at a time (`MetricsExporter` runs them on one thread).
struct ReportMetrics: Sendable {
    private let connected: Gauge
    private let states: [(LiveState.State, Gauge)]
    private let counters: [(@Sendable (LiveState) -> Int64, Counter)]
    private let reconnectAttempt: Gauge
    private let onFallback: Gauge
    private let timestamps: [(@Sendable (LiveState) -> Int64?, Gauge)]
    private let retentionMaxAge: Gauge
    private let retentionMaxRows: Gauge
    private let databaseSize: Gauge
    private let notifications: Gauge
    private let unread: Gauge
    private let outboxWaiting: Gauge
    private let outboxOldest: Gauge

    static let knownStates: [LiveState.State] = [.connecting, .connected, .reconnecting, .rejected, .waitingForNetwork, .stopped]

    init(registry: PrometheusCollectorRegistry) {
        func gauge(_ name: String, unit: String = "", _ help: String) -> Gauge {
            registry.makeGauge(descriptor: .intrapush(name, unit: unit, help))
        }
        func counter(_ name: String, _ help: String) -> Counter {
            registry.makeCounter(descriptor: .intrapush(name, unit: "total", help))
        }
        func countedBy(_ name: String, _ help: String, _ value: @escaping @Sendable (LiveState) -> Int64) -> (@Sendable (LiveState) -> Int64, Counter) {
            (value, counter(name, help))
        }
        func timestamp(_ name: String, unit: String, _ help: String, _ value: @escaping @Sendable (LiveState) -> Int64?) -> (@Sendable (LiveState) -> Int64?, Gauge) {
            (value, gauge(name, unit: unit, help))
        }
        connected = gauge("connected", "1 while the WebSocket to the server is open, else 0.")
        let stateDescriptor = MetricNameDescriptor.intrapush(
            "state", "The daemon's state: 1 for the current one (connecting, connected, reconnecting, rejected, waiting-for-network, stopped).")
        states = Self.knownStates.map { ($0, registry.makeGauge(descriptor: stateDescriptor, labels: [("state", $0.rawValue)])) }
        counters = [
            countedBy("connections", "Connections opened since the daemon started.") { $0.connectionsTotal },
            countedBy("pushes_received", "Pushes received (committed, as duplicates or new rows) since the daemon started.") { $0.receivedTotal },
            countedBy("pushes_stored", "Pushes stored as new notifications since the daemon started.") { $0.storedTotal },
            countedBy("pushes_duplicates", "Pushes whose message id was already stored, since the daemon started.") { $0.duplicateTotal },
            countedBy("pushes_acknowledged", "Pushes acknowledged to the server after their commit, since the daemon started.") { $0.ackedTotal },
            countedBy("hook_runs", "on_notification commands run since the daemon started.") { $0.hookRuns },
            countedBy("hook_failures", "on_notification commands that exited non-zero or could not start.") { $0.hookFailures },
            countedBy("hook_timeouts", "on_notification commands killed for running too long.") { $0.hookTimeouts },
            countedBy("hook_dropped", "Notifications dropped from a full hook queue without a run.") { $0.hookDropped },
            countedBy("pruned_rows", "Notifications deleted by retention since the database was created.") { $0.prunedTotal },
        ]
        reconnectAttempt = gauge("reconnect_attempt", "Consecutive failed connection attempts; 0 while connected.")
        onFallback = gauge("fallback", "1 while connected to another server than the primary (host is a list), else 0.")
        timestamps = [
            timestamp("start_time", unit: "seconds", "When the daemon started, Unix time.") { $0.startedAt },
            timestamp("connected_since_timestamp", unit: "seconds", "When the current connection opened, Unix time; 0 while disconnected.") { $0.connectedSince },
            timestamp("last_heartbeat_timestamp", unit: "seconds", "When the last heartbeat was sent, Unix time; 0 before the first.") { $0.lastHeartbeatAt },
            timestamp("last_push_timestamp", unit: "seconds", "When the last push was stored, Unix time; 0 before the first.") { $0.lastPushAt },
            timestamp("next_attempt_timestamp", unit: "seconds", "When the next connection attempt is due, Unix time; 0 when none waits.") { $0.nextAttemptAt },
            timestamp("last_prune_timestamp", unit: "seconds", "When retention last deleted rows, Unix time; 0 before the first.") { $0.lastPruneAt },
            timestamp("primary_unreachable_since_timestamp", unit: "seconds", "Since when the primary server has been unreachable, Unix time; 0 while it is reachable.") { $0.primaryUnreachableSince },
            timestamp("commit_running_since_timestamp", unit: "seconds", "When the database write under way began, Unix time, once it has run a second without finishing (a stalled disk); 0 otherwise.") { $0.commitRunningSince },
        ]
        retentionMaxAge = gauge("retention_max_age", unit: "seconds", "retention_days in force, in seconds; 0 keeps notifications forever.")
        retentionMaxRows = gauge("retention_max_rows", "retention_max_rows in force; 0 is no limit.")
        databaseSize = gauge("database_size", unit: "bytes", "The database file and its write-ahead log.")
        notifications = gauge("notifications", "Notifications in the database.")
        unread = gauge("notifications_unread", "Notifications not marked read.")
        outboxWaiting = gauge("outbox_waiting_messages", "Messages to the server not yet delivered (queued or sent, unacknowledged).")
        outboxOldest = gauge("outbox_oldest_queued_timestamp", unit: "seconds", "When the oldest undelivered message to the server was queued, Unix time; 0 when none waits.")
    }

    func update(from report: StatusReport) {
        let state = report.state
        connected.set(Int64(state?.state == .connected ? 1 : 0))
        for (known, gauge) in states { gauge.set(Int64(state?.state == known ? 1 : 0)) }
        for (path, counter) in counters {
            counter.reset()
            counter.increment(by: state.map(path) ?? 0)
        }
        reconnectAttempt.set(Int64(state?.reconnectAttempt ?? 0))
        onFallback.set(Int64(state?.primaryServer != nil ? 1 : 0))
        for (path, gauge) in timestamps { gauge.set(Double(state.flatMap(path) ?? 0) / 1000) }
        retentionMaxAge.set(Int64(state?.retentionDays ?? 0) * 86_400)
        retentionMaxRows.set(Int64(state?.retentionMaxRows ?? 0))
        databaseSize.set(report.database.sizeBytes)
        notifications.set(report.database.notifications)
        unread.set(report.database.unread)
        outboxWaiting.set(report.database.outboxWaiting)
        outboxOldest.set(Double(report.database.outboxOldestQueuedAt ?? 0) / 1000)
    }
}
