// SPDX-License-Identifier: Apache-2.0

import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
#if canImport(Glibc)
import Glibc
#endif
import IntrapushConfiguration
import IntrapushStore
import IntrapushSupport

/// The daemon could not run: the exit status that says why (intrapushd(8), EXIT STATUS); what
/// happened is in the journal already.
package struct DaemonExit: Error, Equatable {
    package let status: Int32
}

/// Wires the daemon's parts together: the writer, session, outbox, the local API, metrics,
/// signals; the executable only reads its command line and the configuration.
package struct Daemon {
    let loaded: LoadedConfiguration
    let reload: @Sendable () throws(ConfigurationError) -> LoadedConfiguration

    package init(loaded: LoadedConfiguration, reload: @escaping @Sendable () throws(ConfigurationError) -> LoadedConfiguration) {
        self.loaded = loaded
        self.reload = reload
    }

    /// Runs until SIGTERM or SIGINT, blocking the calling (main) thread. The push loop carries
    /// the connection, commits what it reads and runs every task of the daemon
    /// (EventLoopTaskExecutor says why); the API loop answers the local API and metrics beside
    /// it, so that a write that does not finish stalls the push path only and is reported.
    package func runUntilStopped() throws {
        SignalListener.blockSignals()  // before any thread exists: all of them inherit the mask
        // Never shut down: the process ends with them, once every channel on them is closed.
        // NIO's shutdown of a loop goes through libdispatch, whose worker threads ask for a
        // priority the unit may not take, and log that they could not, at every stop.
        let pushLoops = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let apiLoops = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loops = Loops(push: pushLoops.next(), api: apiLoops.next())
        loops.push.execute { ThreadName.push.apply() }
        loops.api.execute { ThreadName.api.apply() }
        try runBlocking(on: loops.push) { try await run(on: loops) }
    }

    /// The calls under way finish within 2 s and the close handshake takes at most 2 s more;
    /// past this something is stuck, and the services are cancelled. The unit's
    /// TimeoutStopSec stays above it.
    static let stopWithin: TimeAmount = .seconds(5)

    /// The daemon's two event loops, each one thread.
    struct Loops {
        /// The connection, its commits, the session, the outbox, signals, retention.
        let push: any EventLoop
        /// The local API, metrics, and the report of a write that does not finish.
        let api: any EventLoop
    }

    /// Runs until SIGTERM or SIGINT, as a task on the push loop's thread.
    func run(on loops: Loops) async throws {
        HeapPolicy.apply()
        let configuration = loaded.configuration
        let logLevel = LogLevelControl(configuration.logLevel.loggerLevel)
        LoggingSystem.bootstrap { _ in JournalLogHandler(control: logLevel) }
        let logger = Logger(label: "intrapushd")
        for warning in loaded.warnings { logger.warning("\(warning)") }

        let store: NotificationStore
        do {
            // Under the unit systemd made it (StateDirectory=); elsewhere the daemon does, alike.
            try DurableFile.makeDirectories(DurableFile.directory(of: configuration.database), mode: 0o751)
        } catch {
            logger.error("cannot create the database's directory: \(error)")
            throw DaemonExit(status: 74)
        }
        do {
            store = try NotificationStore(path: configuration.database)
        } catch {
            logger.error("cannot open the database \(configuration.database): \(error)")
            throw DaemonExit(status: 74)
        }
        // Once, at start: an older file cannot shrink after pruning, and says how to convert it.
        if let notice = (try? store.autoVacuum())?.notice(databasePath: configuration.database) {
            logger.notice("\(notice)")
        }
        let switches = TestSwitches(environment: ProcessEnvironment.current)
        for notice in switches.notices { logger.warning("\(notice)") }
        let notifier = SystemdNotifier()
        let storeWorker = StoreWorker(
            store: store,
            initialState: LiveState(
                pid: getpid(), state: .connecting, server: configuration.endpoint.redactedURL,
                hostID: configuration.hostIdentity?.value,
                startedAt: WallClock.nowMilliseconds(), updatedAt: WallClock.nowMilliseconds(),
                retentionDays: configuration.retentionDays, retentionMaxRows: configuration.retentionMaxRows
            ),
            eventLoop: loops.push, logger: logger, checkpoints: switches.checkpoints
        )
        // The outbox shares the connection's loop: no locks between them.
        let outbox = OutboxCoordinator(
            eventLoop: loops.push, storeWorker: storeWorker, settings: configuration.outbox, logger: logger)
        let localAPI: LocalAPIServer
        let daemonUserID = getuid()
        do {
            try await outbox.start()
            localAPI = try await LocalAPIServer.bind(
                path: configuration.localAPISocket, databasePath: configuration.database, eventLoop: loops.api, outbox: outbox,
                storeWorker: storeWorker,
                policy: .lookingUpGroups(everyoneReads: configuration.everyoneReads, daemonUserID: daemonUserID),
                liveState: { storeWorker.currentLiveState }, logger: logger)
        } catch let error as LocalAPISocketInUse {
            logger.error("\(error)")
            throw DaemonExit(status: 75)
        } catch {
            logger.error("cannot listen on the local API's socket \(configuration.localAPISocket): \(error)")
            throw DaemonExit(status: 71)
        }
        // A reload may change who may read; the groups are looked up again with it.
        let reload = self.reload
        let reloadAndApply: @Sendable () throws(ConfigurationError) -> LoadedConfiguration = {
            let loaded = try reload()
            localAPI.policyChanged(.lookingUpGroups(everyoneReads: loaded.configuration.everyoneReads, daemonUserID: daemonUserID))
            return loaded
        }
        let exporter = configuration.metricsListen == nil && configuration.metricsFile == nil ? nil
            : MetricsExporter(metrics: DaemonMetrics(), databasePath: configuration.database) { storeWorker.currentLiveState }
        var metricsServer: MetricsServer?
        if let exporter, let address = configuration.metricsListen {
            do {
                metricsServer = try await MetricsServer.bind(address: address, exporter: exporter, eventLoop: loops.api, logger: logger)
            } catch {
                logger.error("cannot listen on metrics_listen \(address): \(error); change metrics_listen or free the port")
                localAPI.close()
                outbox.stop()
                await storeWorker.shutdown()
                throw DaemonExit(status: 71)
            }
        }
        let session = SessionService(
            configuration: configuration, group: loops.push, storeWorker: storeWorker, outbox: outbox,
            notifier: notifier, metrics: exporter, logger: logger, logLevel: logLevel, reloadConfiguration: reloadAndApply
        )
        WriteStallReporter(storeWorker: storeWorker, eventLoop: loops.api, notifier: notifier, logger: logger) {
            session.send(.writeStallEnded)
        }.start()
        let retention = RetentionService(storeWorker: storeWorker, clock: EventLoopClock(eventLoop: loops.push), logger: logger)
        // The session loop also feeds systemd's watchdog (`WatchdogSchedule`).
        let services: [any Service] = [session, retention, localAPI]
        var groupConfiguration = ServiceGroupConfiguration(
            services: services.map { .init(service: $0) },
            gracefulShutdownSignals: [],  // SignalListener reads them
            logger: logger
        )
        // Bounded below by `stopWithin`, on the loop's own timer: ServiceGroup's bound sleeps on
        // Swift's global clock, whose timer starts libdispatch's worker threads.
        groupConfiguration.maximumGracefulShutdownDuration = nil
        let group = ServiceGroup(configuration: groupConfiguration)
        let loop = loops.push
        let running = Task(executorPreference: EventLoopTaskExecutor(eventLoop: loop)) { try await group.run() }
        let signals = try await SignalListener.listen(on: loop) { signal in
            if signal == SIGHUP { return session.requestReload() }
            Task(executorPreference: EventLoopTaskExecutor(eventLoop: loop)) { await group.triggerGracefulShutdown() }
            loop.scheduleTask(in: Self.stopWithin) { running.cancel() }
        }
        logger.info("started; database \(configuration.database), server \(configuration.endpoint.redactedURL)")
        // The session sends READY=1; a signal that comes before is blocked (since main) and waits
        // in the signalfd that SignalListener reads.
        let outcome = await running.result
        // The local API's and the signals' channels live on the event loops: closed before
        // the loops stop.
        localAPI.close()
        metricsServer?.close()
        await exporter?.shutdown()
        try? await signals.close()
        outbox.stop()
        await storeWorker.shutdown()
        try outcome.get()
        logger.info("stopped")
    }
}
