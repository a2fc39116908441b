// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif
import IntrapushInterface
import IntrapushStore
import IntrapushSupport
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization

/// The local API's socket: where the CLI, the desktop agent and any local program reach the
/// daemon (docs/local-api.md). Mode 0666, because who may do what is decided per call
/// from the kernel's word on the caller, not by who may open the file. Under the unit it is
/// `intrapush.socket`'s, passed by systemd, which keeps it across restarts; otherwise the
/// daemon binds it before READY=1 and removes it on the way out.
final class LocalAPIServer: Service, Sendable {
    let channel: any Channel
    let path: String
    let api: LocalAPI
    let queries: QueryRunner
    let connections: VarlinkConnections
    /// systemd's socket: it stays when the daemon goes.
    let isActivated: Bool
    private let isClosed = Atomic(false)

    private init(
        channel: any Channel, path: String, api: LocalAPI, queries: QueryRunner, connections: VarlinkConnections, isActivated: Bool
    ) {
        self.channel = channel
        self.path = path
        self.api = api
        self.queries = queries
        self.connections = connections
        self.isActivated = isActivated
    }

    /// Listens on the socket systemd passed, else on `path`: a stale socket file is replaced, a
    /// live one (another daemon) is not.
    static func bind(
        path: String, databasePath: String, eventLoop: any EventLoop, outbox: OutboxCoordinator, storeWorker: StoreWorker,
        policy: AccessPolicy, liveState: @escaping @Sendable () -> LiveState, limits: VarlinkLimits = VarlinkLimits(), logger: Logger
    ) async throws -> LocalAPIServer {
        let activated = try SocketActivation.localAPISocket()
        if activated == nil, VarlinkConnection.isAnswered(path: path) {
            throw LocalAPISocketInUse(path: path)
        }
        if let activated, activated.path != path {
            logger.warning("the local API listens on \(activated.path), the socket systemd passed (intrapush.socket); the CLI and the desktop agent look for it at \(path)")
        }
        let apiLimits = LocalAPILimits()
        let queries = QueryRunner(
            databasePath: databasePath, eventLoop: eventLoop, maximumWaiting: apiLimits.maximumWaitingQueries,
            betweenScanPieces: { storeWorker.waitForWALToStartOver(atMost: 0.05) })
        let api = LocalAPI(
            limits: apiLimits, outbox: OutboxAcrossLoops(outbox, answeringOn: eventLoop), queries: queries, policy: policy, eventLoop: eventLoop, liveState: liveState, logger: logger)
        let openSubscriptions = api.openSubscriptions
        storeWorker.observeCommits { counts in
            // Wakes the API's loop only when there is someone to tell.
            guard counts.stored > 0, openSubscriptions.withLockedValue({ $0 }) > 0 else { return }
            eventLoop.execute { api.subscriptions.committed() }
        }
        let admission = VarlinkAdmission(limits: limits, eventLoop: eventLoop)
        let connections = VarlinkConnections(eventLoop: eventLoop)
        let bootstrap = ServerBootstrap(group: eventLoop)
            .serverChannelOption(.backlog, value: 128)
            .childChannelOption(.writeBufferWaterMark, value: .init(low: 64 << 10, high: 256 << 10))
            // One read at a time, at most 16 KiB: a connection buffers little before its call runs.
            .childChannelOption(.maxMessagesPerRead, value: 1)
            .childChannelOption(.recvAllocator, value: AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 2048, maximum: 16384))
            .childChannelInitializer { VarlinkPipeline.install(on: $0, service: api, admission: admission, connections: connections) }
        if let activated {
            let channel = try await bootstrap.withBoundSocket(activated.descriptor).get()
            return LocalAPIServer(
                channel: channel, path: activated.path, api: api, queries: queries, connections: connections, isActivated: true)
        }
        // /run/intrapush when the daemon runs as root without the unit's socket.
        try DurableFile.makeDirectories(DurableFile.directory(of: path), mode: 0o755)
        let channel = try await bootstrap.bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true).get()
        // Every local user may connect; the API decides what each may do.
        chmod(path, 0o666)
        return LocalAPIServer(channel: channel, path: path, api: api, queries: queries, connections: connections, isActivated: false)
    }

    /// A reload changed who may read.
    func policyChanged(_ policy: AccessPolicy) {
        let api = self.api
        channel.eventLoop.execute { api.policyChanged(policy) }
    }

    /// How long calls under way may take to finish at a stop; past it their connections close
    /// unanswered, and their callers ask the next daemon.
    static let finishCallsWithin: TimeAmount = .seconds(2)

    func run() async throws {
        await waitForGracefulShutdown()
        close()
        await finishCalls()
        await queries.shutdown()
        let api = self.api
        try? await channel.eventLoop.submit { api.names.stop() }.get()
    }

    /// A stop: no new call is taken, the calls under way are answered from the data (the
    /// queries run until they are), subscriptions end; then every connection is closed, so
    /// that no caller is answered with an error because the daemon is stopping.
    private func finishCalls() async {
        let (connections, api) = (self.connections, self.api)
        let loop = channel.eventLoop
        let finished = loop.flatSubmit {
            let allClosed = connections.finishAndClose()
            api.subscriptions.endAll()
            let timeout = loop.scheduleTask(in: Self.finishCallsWithin) { connections.closeAll() }
            allClosed.whenComplete { _ in timeout.cancel() }
            return allClosed
        }
        try? await finished.get()
    }

    /// Stops taking calls and removes the socket file, once: a second unlink could remove the
    /// socket of a daemon started since. systemd's socket stays: callers wait in its queue for
    /// the next daemon.
    func close() {
        guard isClosed.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged else { return }
        channel.close(promise: nil)
        if !isActivated { unlink(path) }
    }
}

/// Another process answers on the socket: most likely a second daemon.
struct LocalAPISocketInUse: Error, CustomStringConvertible {
    var path: String
    var description: String {
        "another intrapushd answers on \(path); stop it first, or give this one another database (the socket follows the database)"
    }
}

extension QueryRunner: LocalAPIQueries {}

extension AccessPolicy {
    /// The policy of `readers` with today's groups, looked up by name, for a daemon running as
    /// `daemonUserID`.
    static func lookingUpGroups(everyoneReads: Bool, daemonUserID: UInt32) -> AccessPolicy {
        AccessPolicy(
            everyoneReads: everyoneReads, readerGroupID: CallerDirectory.groupID(named: readerGroup),
            senderGroupID: CallerDirectory.groupID(named: senderGroup), adminGroupID: CallerDirectory.groupID(named: adminGroup),
            daemonUserID: daemonUserID)
    }
}
