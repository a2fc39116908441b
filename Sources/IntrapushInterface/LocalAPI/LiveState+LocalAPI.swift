import IntrapushStore

/// `io.intrapush.Daemon`'s `DaemonState`: the live state, field for field.
extension LiveState {
    package var localAPIValue: DaemonInterface.DaemonState {
        DaemonInterface.DaemonState(
            state: state.rawValue, pid: pid.map(Int64.init), server: server, primaryServer: primaryServer,
            primaryUnreachableSince: primaryUnreachableSince, connectedSince: connectedSince, lastHeartbeatAt: lastHeartbeatAt,
            lastPushAt: lastPushAt, commitRunningSince: commitRunningSince, reconnectAttempt: Int64(reconnectAttempt), nextAttemptAt: nextAttemptAt, lastError: lastError,
            receivedTotal: receivedTotal, storedTotal: storedTotal, duplicateTotal: duplicateTotal, ackedTotal: ackedTotal,
            connectionsTotal: connectionsTotal, startedAt: startedAt, updatedAt: updatedAt, retentionDays: retentionDays.map(Int64.init),
            retentionMaxRows: retentionMaxRows.map(Int64.init), lastPruneAt: lastPruneAt, prunedTotal: prunedTotal,
            hookRuns: hookRuns, hookFailures: hookFailures, hookTimeouts: hookTimeouts, hookDropped: hookDropped)
    }

    package init(_ value: DaemonInterface.DaemonState) {
        self.init(
            pid: value.pid.flatMap { Int32(exactly: $0) }, state: State(rawValue: value.state), server: value.server,
            connectedSince: value.connectedSince, lastHeartbeatAt: value.lastHeartbeatAt, lastPushAt: value.lastPushAt,
            reconnectAttempt: Int(clamping: value.reconnectAttempt), nextAttemptAt: value.nextAttemptAt, lastError: value.lastError,
            receivedTotal: value.receivedTotal, storedTotal: value.storedTotal, duplicateTotal: value.duplicateTotal,
            ackedTotal: value.ackedTotal, connectionsTotal: value.connectionsTotal, startedAt: value.startedAt, updatedAt: value.updatedAt,
            retentionDays: value.retentionDays.map { Int(clamping: $0) }, retentionMaxRows: value.retentionMaxRows.map { Int(clamping: $0) },
            lastPruneAt: value.lastPruneAt, prunedTotal: value.prunedTotal, hookRuns: value.hookRuns, hookFailures: value.hookFailures,
            hookTimeouts: value.hookTimeouts, hookDropped: value.hookDropped)
        primaryServer = value.primaryServer
        primaryUnreachableSince = value.primaryUnreachableSince
        commitRunningSince = value.commitRunningSince
    }
}
