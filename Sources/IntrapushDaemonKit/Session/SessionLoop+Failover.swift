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

    /// Dials the primary beside the open connection. Its pushes are stored and acknowledged as
    /// soon as it is up (a push both servers send is stored once, acknowledged to each).
    mutating func probePrimary(tasks: inout DiscardingTaskGroup) {
        probeCounter += 1
        let id = probeCounter
        let cancellation = DialCancellation()
        probe = (id, cancellation, nil)
        logger.info("trying the primary \(configuration.endpoint.redactedURL) again")
        startDial(
            toServer: 0, cancellation: cancellation,
            events: { .probeConnection($0, probe: id) },
            succeeded: { .probeSucceeded($0, probe: id) },
            failed: { .probeFailed($0, probe: id) },
            tasks: &tasks)
    }

    /// The primary's dial is up: the machine decides whether it becomes the connection
    /// (`switchToPrimary`) or is let go (`abandonProbe`).
    mutating func probeSucceeded(_ newChannel: any Channel, tasks: inout DiscardingTaskGroup) {
        probe?.channel = newChannel
        attachCurrentHook(to: newChannel)
        perform(machine.primaryProbeSucceeded(at: .now), tasks: &tasks)
    }

    /// The probe's channel becomes the connection; the fallback's is drained and closed.
    mutating func switchToPrimary() {
        guard let (id, _, newChannel) = probe, let newChannel else { return }
        // The old connection's events go on arriving under its generation: its acknowledgements
        // still count, its close starts nothing. A reconnect timer of a lost fallback is void.
        let old = channel
        drainingGeneration = old == nil ? nil : generation
        generation += 1
        waitTimer?.cancel()
        promotedProbe = id
        probe = nil
        channel = newChannel
        // The handler commits what it received, acknowledges it, then closes with 1000.
        old?.pipeline.fireUserInboundEventTriggered(CloseRequested(reason: .returnedToPrimary))
        connectionOpened()
    }

    /// The probe is no longer wanted: its dial is cancelled, or its channel closed.
    mutating func abandonProbe() {
        probe?.cancellation.cancel()
        probe?.channel?.close(promise: nil)
        probe = nil
    }

    /// An event of the fallback's connection after the switch.
    mutating func drained(_ event: ConnectionEvent) {
        switch event {
        case .batchAcknowledged(let count):
            service.storeWorker.amendLiveState { $0.ackedTotal += Int64(count) }
        case .closed(let reason):
            drainingGeneration = nil
            logger.info("closed the connection to the fallback: \(reason)")
        case .heartbeatSent:
            break
        }
    }
}
