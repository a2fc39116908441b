import IntrapushConfiguration
import IntrapushStore
import IntrapushSupport
import Logging
import NIOCore

/// The mutable side of `SessionService`: the state machine, the open channel and the counters.
/// Lives inside the service's single loop, so it needs no lock.
struct SessionLoop {
    let service: SessionService
    var configuration: Configuration
    var machine: SessionStateMachine<SystemRandomNumberGenerator>
    var generation = 0
    var channel: (any Channel)?
    var dialCancellation: DialCancellation?
    /// One dialer per server (each its own TLS name), built on first use.
    var dialers: [Int: WebSocketDialer] = [:]
    /// The primary's dial beside a fallback's connection, while it runs.
    var probe: (id: Int, cancellation: DialCancellation, channel: (any Channel)?)?
    var probeCounter = 0
    /// The connection began as a probe: its events come as `probeConnection` with this number.
    var promotedProbe: Int?
    /// The fallback's connection being drained and closed after the switch to the primary.
    var drainingGeneration: Int?
    /// The disconnected session's one timer: the backoff's, or the next look for a route.
    var waitTimer: SessionTimer?
    var failbackTimer: SessionTimer?
    /// The netlink monitor runs: route checks are worth making.
    var isNetworkMonitored = false
    /// When the counts in `STATUS=` are shown again; the counts themselves are the live state's.
    var statusRenewal = StatusRenewal<ContinuousClock.Instant>(spacing: .seconds(1)) { $0.advanced(by: $1) }
    var status = ""
    var isFinished = false
    /// The `on_notification` runner(s); each connection hands its stored notifications over.
    var hooks: HookRunners
    /// Nil when systemd asked for no watchdog.
    var watchdog: WatchdogSchedule?
    /// The last due turn found the database stuck (logged once per stall).
    var isWatchdogHungry = false
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

    mutating func handle(_ event: SessionService.Event, tasks: inout DiscardingTaskGroup) {
        switch event {
        case .dialSucceeded(let channel, let dial) where dial == generation:
            self.channel = channel
            dialCancellation = nil
            attachCurrentHook(to: channel)
            let action = machine.connectionEstablished(at: .now)
            connectionOpened()
            perform(action, tasks: &tasks)
        case .dialSucceeded(let channel, _):
            channel.close(promise: nil)  // a superseded dial: not ours any more
        case .dialFailed(let reason, let dial) where dial == generation:
            dialCancellation = nil
            logger.warning("cannot connect to \(currentEndpoint.redactedURL): \(reason)")
            let action = machine.connectionFailed(reason, at: .now)
            if action.contains(where: \.reconnects) { service.metrics?.metrics.reconnectNeeded(because: reason) }
            perform(action, tasks: &tasks)
        case .connection(let connectionEvent, let connection) where connection == generation && promotedProbe == nil:
            handle(connectionEvent, tasks: &tasks)
        case .probeConnection(let connectionEvent, let probe) where probe == promotedProbe:
            handle(connectionEvent, tasks: &tasks)
        case .connection(let connectionEvent, let connection) where connection == drainingGeneration:
            drained(connectionEvent)
        case .probeConnection(let connectionEvent, let probe) where probe == self.probe?.id:
            if case .batchAcknowledged(let count) = connectionEvent {
                service.storeWorker.amendLiveState { $0.ackedTotal += Int64(count) }
            }
        case .probeSucceeded(let channel, let probe) where probe == self.probe?.id:
            probeSucceeded(channel, tasks: &tasks)
        case .probeSucceeded(let channel, _):
            channel.close(promise: nil)  // an abandoned probe
        case .probeFailed(let reason, let probe) where probe == self.probe?.id:
            self.probe = nil
            logger.notice("the primary \(configuration.endpoint.redactedURL) is still unreachable: \(reason)")
            perform(machine.primaryProbeFailed(reason, at: .now), tasks: &tasks)
            let since = primaryUnreachableSinceMilliseconds
            persist(writing: false) { $0.primaryUnreachableSince = since }
        case .timerFired(let timer) where !timer.isCancelled:
            timerFired(timer.due, tasks: &tasks)
        case .networkChanged(let change):
            networkChanged(change, tasks: &tasks)
        case .shutdownRequested:
            service.notifier.stopping()
            logger.info("stopping")
            setStatus("stopping")
            abandonProbe()
            perform(machine.shutdownRequested(), tasks: &tasks)
        case .reloadRequested:
            reload(tasks: &tasks)
        default:
            break  // an event of a superseded connection, or of a cancelled timer
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

    private mutating func handle(_ event: ConnectionEvent, tasks: inout DiscardingTaskGroup) {
        switch event {
        case .heartbeatSent(let at):
            // In memory only: `intrapush status` asks the daemon, so a heartbeat writes nothing.
            persist(writing: false) { $0.lastHeartbeatAt = at }
            service.storeWorker.releaseMemoryIfUsed()
        case .batchAcknowledged(let count):
            service.storeWorker.amendLiveState { $0.ackedTotal += Int64(count) }
            countsChanged(tasks: &tasks)
        case .closed(let reason):
            channel = nil
            logger.notice("disconnected from \(currentEndpoint.redactedURL): \(reason)")
            let action = machine.connectionLost(reason, at: .now)
            if action.contains(where: \.reconnects) { service.metrics?.metrics.reconnectNeeded(because: reason) }
            perform(action, tasks: &tasks)
        }
    }

    mutating func connectionOpened() {
        let now = WallClock.nowMilliseconds()
        logger.info("connected to \(currentEndpoint.redactedURL)\(fallbackRemark)")
        setStatus(connectedStatus)
        statusRenewal.renewed(at: .now)
        persist {
            $0.connectedSince = now
            $0.reconnectAttempt = 0
            $0.nextAttemptAt = nil
            $0.connectionsTotal += 1
            $0.server = currentEndpoint.redactedURL
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
    /// hook's counters riding along. `writing` queues the row's write on the store thread (for
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
