// SPDX-License-Identifier: Apache-2.0

import IntrapushConfiguration
import IntrapushSupport
import NIOCore

/// More than one server: which one the connection is to, and returning to the primary
/// make-before-break — the primary's connection is up before the fallback's is drained and closed.
extension SessionLoop {
    /// The server of the open connection, or of the dial in progress or next.
    var currentEndpoint: ServerEndpoint {
        let index = machine.currentServer
        return index < configuration.hosts.count ? configuration.endpoint(for: configuration.hosts[index]) : configuration.endpoint
    }

    /// For log lines: on a fallback, that it is one and since when the primary is unreachable.
    var fallbackRemark: String {
        guard machine.isOnFallback else { return "" }
        let since = primaryUnreachableSinceMilliseconds.map { " since \(Timestamp.local(milliseconds: $0))" } ?? ""
        return " (a fallback: the primary \(configuration.endpoint.redactedURL) is unreachable\(since))"
    }

    /// The machine's instant as Unix milliseconds, for the status line, the live state and metrics.
    var primaryUnreachableSinceMilliseconds: Int64? {
        machine.primaryUnreachableSince.map { WallClock.nowMilliseconds() &- $0.duration(to: .now).milliseconds }
    }

    mutating func scheduleFailback(after delay: Duration, tasks: inout DiscardingTaskGroup) {
        failbackTimer?.cancel()
        failbackTimer = schedule(.failback, after: delay, tasks: &tasks)
    }

    /// Dials the primary beside the open connection, as `id`. Its pushes are stored and
    /// acknowledged as soon as it is up (a push both servers send is stored once, acknowledged
    /// to each).
    mutating func probePrimary(_ id: ConnectionID, tasks: inout DiscardingTaskGroup) {
        logger.info("trying the primary \(configuration.endpoint.redactedURL) again")
        startDial(id, toServer: 0, tasks: &tasks)
    }

    /// The primary's connection is the session's now; the fallback's, when still open, commits
    /// what it received, acknowledges it, then closes with 1000 (its events keep coming under
    /// its id: its acknowledgements still count, its close starts nothing).
    mutating func switchToPrimary(from fallback: ConnectionID?, to primary: ConnectionID) {
        waitTimer?.cancel()  // a reconnect timer of a lost fallback is void
        if let fallback {
            channels[fallback]?.pipeline.fireUserInboundEventTriggered(CloseRequested(reason: .returnedToPrimary))
        }
        let primary = configuration.endpoint.redactedURL
        logger.notice("the primary \(primary) is back: returning to it", metadata: .event(.failback, ["server": primary]))
        connectionOpened()
    }
}
