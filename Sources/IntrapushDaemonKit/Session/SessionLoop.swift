// SPDX-License-Identifier: Apache-2.0

import IntrapushConfiguration
import IntrapushStore
import IntrapushSupport
import Logging
import NIOCore

/// The mutable side of `SessionService`: the state machine, the channels and dials it names,
/// the timers.
/// Lives inside the service's single loop, so it needs no lock.
struct SessionLoop {
    let service: SessionService
    var configuration: Configuration
    var machine: SessionStateMachine<SystemRandomNumberGenerator>
    /// The channels of open connections, and the dials under way, by the machine's ids: the
    /// session's, the primary's probe beside it, a fallback being drained.
    var channels: [ConnectionID: any Channel] = [:]
    var dials: [ConnectionID: DialCancellation] = [:]
    /// One dialer per server (each its own TLS name), built on first use.
    var dialers: [Int: WebSocketDialer] = [:]
    /// The disconnected session's one timer: the backoff's, or the next look for a route.
    var waitTimer: SessionTimer?
    var failbackTimer: SessionTimer?
    /// The netlink monitor runs: route checks are worth making.
    var isNetworkMonitored = false
    /// When the counts in `STATUS=` are shown again; the counts themselves are the live state's.
    var statusRenewal = StatusRenewal<ContinuousClock.Instant>(spacing: .seconds(1)) { $0.advanced(by: $1) }
    var status = ""
    var isFinished = false
    /// A reload's read runs (`SessionLoop+Reload`); nil when none does.
    var reloading: ReloadProgress?
    /// The `on_notification` runner(s); each connection hands its stored notifications over.
    var hooks: HookRunners
    /// Nil when systemd asked for no watchdog.
    var watchdog: WatchdogSchedule?
    /// When `metrics_file` was last written.
    var metricsFileWrittenAt: ContinuousClock.Instant?

    init(service: SessionService, configuration: Configuration) {
        self.service = service
        self.configuration = configuration
        self.machine = SessionStateMachine(
            backoff: Backoff(minimum: configuration.reconnectMin, maximum: configuration.reconnectMax),
            random: SystemRandomNumberGenerator(),
            serverCount: configuration.hosts.count,
            failbackInterval: configuration.failbackInterval
        )
        self.hooks = HookRunners(command: configuration.hookCommand, logger: service.logger)
        self.watchdog = service.notifier.watchdogTimeout().map(WatchdogSchedule.init(period:))
    }

    var logger: Logger { service.logger }

    mutating func start(tasks: inout DiscardingTaskGroup) {
        perform(machine.started(), tasks: &tasks)
    }

    /// The session's open connection (closing included).
    var channel: (any Channel)? { machine.openConnectionID.flatMap { channels[$0] } }

    mutating func handle(_ event: SessionService.Event, tasks: inout DiscardingTaskGroup) {
        switch event {
        case .dialSucceeded(let channel, let id):
            dials[id] = nil
            channels[id] = channel
            attachCurrentHook(to: channel)
            perform(machine.connectionEstablished(id, at: .now), tasks: &tasks)
        case .dialFailed(let reason, let id):
            dials[id] = nil
            if id == machine.probeID {
                logger.notice("the primary \(configuration.endpoint.redactedURL) is still unreachable: \(reason)")
            } else if id == machine.connectionID {
                let server = currentEndpoint.redactedURL
                if case .serverIdentityRefused = reason {
                    logger.error("cannot connect to \(server): \(reason)", metadata: .event(.serverCertificateRefused, ["server": server, "reason": "\(reason)"]))
                } else {
                    logger.warning("cannot connect to \(server): \(reason)", metadata: ["server": "\(server)"])
                }
            }
            let actions = machine.connectionFailed(id, reason, at: .now)
            if actions.contains(where: \.reconnects) { service.metrics?.metrics.reconnectNeeded(because: reason) }
            perform(actions, tasks: &tasks)
            let since = primaryUnreachableSinceMilliseconds
            persist(writing: false) { $0.primaryUnreachableSince = since }
        case .connection(let connectionEvent, let id):
            handle(connectionEvent, of: id, tasks: &tasks)
        case .timerFired(let timer) where !timer.isCancelled:
            timerFired(timer.due, tasks: &tasks)
        case .pushesCommitted:
            if channel != nil { countsChanged(tasks: &tasks) }
        case .writeStallEnded:
            service.notifier.status(status)
        case .networkChanged(let change):
            networkChanged(change, tasks: &tasks)
        case .shutdownRequested:
            service.notifier.stopping()
            logger.info("stopping")
            setStatus("stopping")
            perform(machine.shutdownRequested(), tasks: &tasks)
        case .reloadRequested:
            reloadRequested()
        case .configurationRead(let result):
            configurationRead(result, tasks: &tasks)
        case .timerFired:
            break  // cancelled before it came
        }
    }

    private mutating func timerFired(_ due: SessionTimer.Due, tasks: inout DiscardingTaskGroup) {
        switch due {
        case .reconnect:
            checkRoute(tasks: &tasks)
            perform(machine.reconnectDelayElapsed(), tasks: &tasks)
        case .networkRecheck:
            recheckNetwork(tasks: &tasks)
        case .failback:
            perform(machine.failbackDue(), tasks: &tasks)
        case .statusRenewal:
            if statusRenewal.renewalDue(at: .now) == .renewNow, channel != nil { setStatus(connectedStatus) }
        case .watchdogFallback:
            watchdog?.fallbackFired()  // the turn itself is what counts (`loopTurned`)
        }
    }

    /// An event of connection `id`: the session's, the primary's probe, or a fallback drained
    /// after the switch. Acknowledgements count whichever connection made them.
    private mutating func handle(_ event: ConnectionEvent, of id: ConnectionID, tasks: inout DiscardingTaskGroup) {
        switch event {
        case .heartbeatSent(let at):
            guard id == machine.openConnectionID else { return }
            // In memory only: `intrapush status` asks the daemon, so a heartbeat writes nothing.
            persist(writing: false) { $0.lastHeartbeatAt = at }
            service.storeWorker.releaseMemoryIfUsed()
        case .closed(let reason):
            // A discarded dial's channel left the map when it was closed: its end says nothing.
            let wasKept = channels.removeValue(forKey: id) != nil
            if id == machine.connectionID {
                var fields = ["server": currentEndpoint.redactedURL, "reason": "\(reason)"]
                if case .closedByServer(let code?) = reason { fields["close_code"] = "\(code)" }
                logger.notice("disconnected from \(currentEndpoint.redactedURL): \(reason)", metadata: .event(.disconnected, fields))
            } else if wasKept, id != machine.probeID {
                logger.info("closed the connection to the fallback: \(reason)")
            }
            let actions = machine.connectionLost(id, reason, at: .now)
            if actions.contains(where: \.reconnects) { service.metrics?.metrics.reconnectNeeded(because: reason) }
            perform(actions, tasks: &tasks)
        }
    }

    mutating func connectionOpened() {
        let now = WallClock.nowMilliseconds()
        let server = currentEndpoint.redactedURL
        logger.info("connected to \(server)\(fallbackRemark)", metadata: .event(.connected, ["server": server]))
        if machine.isOnFallback {
            let primary = configuration.endpoint.redactedURL
            logger.warning(
                "on the fallback \(server): the primary \(primary) is unreachable; it is tried again every failback_interval",
                metadata: .event(.failover, ["server": server, "primary": primary]))
        }
        setStatus(connectedStatus)
        statusRenewal.renewed(at: .now)
        persist {
            $0.connectedSince = now
            $0.reconnectAttempt = 0
            $0.nextAttemptAt = nil
            $0.connectionsTotal += 1
            $0.server = currentEndpoint.redactedURL
            $0.hostID = configuration.hostIdentity?.value
            $0.primaryServer = machine.isOnFallback ? configuration.endpoint.redactedURL : nil
            $0.primaryUnreachableSince = primaryUnreachableSinceMilliseconds
        }
    }

    /// The connected line, with the live state's count of what was received.
    var connectedStatus: String {
        StatusLine.connected(
            to: configuration, server: machine.currentServer, received: service.storeWorker.currentLiveState.receivedTotal,
            primaryUnreachableSince: primaryUnreachableSinceMilliseconds)
    }

    /// The counts changed: shown now, or by the one timer that ends the current second.
    private mutating func countsChanged(tasks: inout DiscardingTaskGroup) {
        let now = ContinuousClock.now
        switch statusRenewal.countChanged(at: now) {
        case .renewNow:
            setStatus(connectedStatus)
        case .renewAt(let instant):
            schedule(.statusRenewal, after: now.duration(to: instant), tasks: &tasks)
        case .wait:
            break
        }
    }

    mutating func setStatus(_ text: String) {
        guard text != status else { return }
        status = text
        service.notifier.status(text)
    }

    /// Changes the live state: its `state` derived from the machine, then `change`, with the
    /// hook's counters riding along. `writing` queues the row's write on the writing loop (for
    /// changes worth keeping after a crash), without waiting; otherwise it stays in memory, where
    /// the local API's `Status` reads it.
    func persist(writing: Bool = true, _ change: (inout LiveState) -> Void) {
        let hookCounters = hooks.isEmpty ? nil : hooks.counters
        let derived = machine.liveState
        let update = { (state: inout LiveState) in
            state.state = derived
            change(&state)
            if let hookCounters { state.recordHooks(hookCounters) }
        }
        if writing {
            service.storeWorker.updateLiveState(update)
        } else {
            service.storeWorker.amendLiveState(update)
        }
    }
}
