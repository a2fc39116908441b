import Logging
import NIOCore
import ServiceLifecycle

/// Feeds systemd's watchdog every `WATCHDOG_USEC`/2, but only after the daemon's own parts
/// answered: the event loop, the session loop and the store thread (with a query).
///
/// A server outage does not stop the feeding (it shows in `STATUS=` instead); a hung event loop,
/// session loop or database does, and systemd restarts the daemon.
package struct WatchdogService: Service {
    let notifier: SystemdNotifier
    let interval: Duration
    let group: any EventLoopGroup
    let session: SessionService
    let storeWorker: StoreWorker
    let logger: Logger

    /// Nil when systemd asked for no watchdog.
    package init?(notifier: SystemdNotifier, group: any EventLoopGroup, session: SessionService, storeWorker: StoreWorker, logger: Logger) {
        guard let timeout = notifier.watchdogTimeout() else { return nil }
        self.notifier = notifier
        self.interval = timeout / 2
        self.group = group
        self.session = session
        self.storeWorker = storeWorker
        self.logger = logger
    }

    package func run() async throws {
        await EventLoopClock(eventLoop: group.next()).every(interval) { [self] in
            do {
                try await group.next().submit {}.get()
                await session.probe()
                try await storeWorker.checkHealth()
                notifier.watchdogAlive()
            } catch {
                logger.error("health check failed; not feeding the watchdog: \(error)")
            }
        }
    }
}
