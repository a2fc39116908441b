// SPDX-License-Identifier: Apache-2.0

import IntrapushConfiguration
import Logging
import NIOConcurrencyHelpers
import NIOCore
import ServiceLifecycle

/// Keeps the one WebSocket to the server: dials, reconnects with backoff, reloads on SIGHUP,
/// closes with 1000 on graceful shutdown. All decisions come from `SessionStateMachine`; this
/// service performs them, one event at a time, from a single loop.
final class SessionService: Service, Sendable {
    /// Everything the loop reacts to. A dial's and its connection's events carry the id the
    /// session machine gave the dial; what each means is the machine's to say.
    enum Event: Sendable {
        case dialSucceeded(any Channel, ConnectionID)
        case dialFailed(DisconnectReason, ConnectionID)
        case connection(ConnectionEvent, ConnectionID)
        /// The store committed pushes: the status line's count changed.
        case pushesCommitted
        /// A database write that ran long finished (`WriteStallReporter`, which said so on the
        /// status line meanwhile): the loop's own line goes back.
        case writeStallEnded
        /// The netlink monitor saw the network change (sent from the monitor's thread).
        case networkChanged(NetworkChange)
        case shutdownRequested
        case reloadRequested
        /// What a reload read, from its own thread (`SessionLoop+Reload`).
        case configurationRead(Result<ReadConfiguration, ConfigurationError>)
        /// A timer of the loop ran out (`SessionTimer`); void when it was cancelled.
        case timerFired(SessionTimer)
    }

    let group: any EventLoopGroup
    /// Reconnect delays and network rechecks: timers of the event loop.
    let clock: EventLoopClock
    let storeWorker: StoreWorker
    /// Messages to the server: attached to each connection once it opens.
    let outbox: OutboxCoordinator
    let notifier: SystemdNotifier
    /// Metrics (`metrics_listen`, `metrics_file`); `nil` when neither is set.
    let metrics: MetricsExporter?
    let logger: Logger
    let logLevel: LogLevelControl
    let reloadConfiguration: @Sendable () throws(ConfigurationError) -> LoadedConfiguration
    let initialConfiguration: Configuration
    private let events: (stream: AsyncStream<Event>, continuation: AsyncStream<Event>.Continuation)

    init(
        configuration: Configuration,
        group: any EventLoopGroup,
        storeWorker: StoreWorker,
        outbox: OutboxCoordinator,
        notifier: SystemdNotifier,
        metrics: MetricsExporter? = nil,
        logger: Logger,
        logLevel: LogLevelControl,
        reloadConfiguration: @escaping @Sendable () throws(ConfigurationError) -> LoadedConfiguration
    ) {
        self.initialConfiguration = configuration
        self.group = group
        self.clock = EventLoopClock(eventLoop: group.next())
        self.storeWorker = storeWorker
        self.outbox = outbox
        self.notifier = notifier
        self.metrics = metrics
        self.logger = logger
        self.logLevel = logLevel
        self.reloadConfiguration = reloadConfiguration
        self.events = AsyncStream.makeStream(of: Event.self)
    }

    func run() async throws {
        let continuation = events.continuation
        var loop = SessionLoop(service: self, configuration: initialConfiguration)
        storeWorker.observeCommits { [weak self] _ in self?.send(.pushesCommitted) }
        let monitor = startNetworkMonitor()
        defer { monitor?.stop() }
        loop.watchNetwork(isMonitored: monitor != nil)
        // The signals we answer are blocked since main and read from a signalfd
        // (SignalListener): one that comes right after READY=1 waits there, never fatal.
        notifier.ready(status: StatusLine.connecting(to: initialConfiguration))
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { tasks in
                loop.start(tasks: &tasks)
                loop.loopTurned(tasks: &tasks)
                for await event in events.stream {
                    loop.handle(event, tasks: &tasks)
                    if loop.isFinished { break }
                    loop.loopTurned(tasks: &tasks)
                }
                // The connection is closed: nothing more reaches the hooks. Replaced runners
                // still retiring in `tasks` end by the same deadline.
                await loop.stopHooks()
                tasks.cancelAll()
            }
        } onGracefulShutdown: {
            continuation.yield(.shutdownRequested)
        }
        continuation.finish()
        await loop.recordStopped()
    }

    /// SIGHUP: read the configuration again.
    func requestReload() {
        send(.reloadRequested)
    }

    func send(_ event: Event) {
        events.continuation.yield(event)
    }
}
