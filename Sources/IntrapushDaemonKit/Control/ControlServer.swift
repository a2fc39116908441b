#if canImport(Glibc)
import Glibc
#endif
import IntrapushInterface
import IntrapushStore
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization

/// The control socket: where `intrapush send`, `request` and `mark-read` reach the daemon, the
/// database's one writer (README "How the CLI reaches the daemon").
///
/// Beside the database (`notifications.sqlite3.sock`), whose directory the daemon can write.
/// Bound before READY=1, so that `systemctl start intrapush && intrapush send …` works; mode
/// 0660, so that the daemon's group may connect. Removed on the way out.
package final class ControlServer: Service, Sendable {
    let channel: any Channel
    let path: String
    let logger: Logger
    private let isClosed = Atomic(false)

    private init(channel: any Channel, path: String, logger: Logger) {
        self.channel = channel
        self.path = path
        self.logger = logger
    }

    /// Listens on `path`; a stale socket file is replaced, a live one (another daemon) is not.
    /// `liveState` answers `status`: what the daemon is doing now, from memory.
    package static func bind(
        path: String, outbox: OutboxCoordinator, liveState: @escaping @Sendable () -> LiveState,
        limits: ControlLimits = ControlLimits(), logger: Logger
    ) async throws -> ControlServer {
        if case .answered = ControlClient.probe(path: path) {
            throw ControlSocketInUse(path: path)
        }
        let admission = ControlAdmission(limits: limits, eventLoop: outbox.eventLoop)
        let channel = try await ServerBootstrap(group: outbox.eventLoop)
            .serverChannelOption(.backlog, value: 128)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let decoder = ControlFrameDecoder(admission: admission) { outbox.settings.maximumMessageSize }
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(decoder))
                    try channel.pipeline.syncOperations.addHandler(
                        ControlRequestHandler(outbox: outbox, liveState: liveState, admission: admission, logger: logger))
                }
            }
            .bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true)
            .get()
        // The umask (0027 under the unit) left the group without write permission, which
        // connecting needs.
        chmod(path, 0o660)
        return ControlServer(channel: channel, path: path, logger: logger)
    }

    package func run() async throws {
        try? await gracefulShutdown()
        close()
    }

    /// Stops taking requests and removes the socket file, once: a second unlink could remove
    /// the socket of a daemon started since.
    package func close() {
        guard isClosed.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged else { return }
        channel.close(promise: nil)
        unlink(path)
    }
}

/// Another process answers on the control socket: most likely a second daemon.
package struct ControlSocketInUse: Error, CustomStringConvertible {
    package var path: String
    package var description: String {
        "another intrapushd answers on \(path); stop it first, or give this one another database (the socket lies beside it)"
    }
}
