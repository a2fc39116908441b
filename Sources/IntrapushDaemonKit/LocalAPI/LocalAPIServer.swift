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

/// The local API's socket: where the CLI, the desktop agent and any local program reach the
/// daemon (README "The local API"). Mode 0666, because who may do what is decided per call
/// from the kernel's word on the caller, not by who may open the file. Bound before READY=1;
/// removed on the way out.
final class LocalAPIServer: Service, Sendable {
    let channel: any Channel
    let path: String
    let api: LocalAPI
    let queries: QueryRunner
    private let isClosed = Atomic(false)

    private init(channel: any Channel, path: String, api: LocalAPI, queries: QueryRunner) {
        self.channel = channel
        self.path = path
        self.api = api
        self.queries = queries
    }

    /// Listens on `path`; a stale socket file is replaced, a live one (another daemon) is not.
    static func bind(
        path: String, databasePath: String, outbox: OutboxCoordinator, storeWorker: StoreWorker, policy: AccessPolicy,
        liveState: @escaping @Sendable () -> LiveState, limits: VarlinkLimits = VarlinkLimits(), logger: Logger
    ) async throws -> LocalAPIServer {
        if VarlinkConnection.isAnswered(path: path) {
            throw LocalAPISocketInUse(path: path)
        }
        let eventLoop = outbox.eventLoop
        let apiLimits = LocalAPILimits()
        let queries = QueryRunner(
            databasePath: databasePath, eventLoop: eventLoop, maximumWaiting: apiLimits.maximumWaitingQueries,
            betweenScanPieces: { storeWorker.waitForHeldBackCheckpoint(atMost: 0.05) })
        let api = LocalAPI(
            limits: apiLimits, outbox: outbox, queries: queries, policy: policy, eventLoop: eventLoop, liveState: liveState, logger: logger)
        storeWorker.observeCommits { counts in
            if counts.stored > 0 { eventLoop.execute { api.subscriptions.committed() } }
        }
        let admission = VarlinkAdmission(limits: limits, eventLoop: eventLoop)
        let channel = try await ServerBootstrap(group: eventLoop)
            .serverChannelOption(.backlog, value: 128)
            .childChannelOption(.writeBufferWaterMark, value: .init(low: 64 << 10, high: 256 << 10))
            // One read at a time, at most 16 KiB: a connection buffers little before its call runs.
            .childChannelOption(.maxMessagesPerRead, value: 1)
            .childChannelOption(.recvAllocator, value: AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 2048, maximum: 16384))
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let identity = try? channel.pipeline.syncOperations.withUnsafeTransportIfAvailable(of: NIOBSDSocket.Handle.self) {
                        PeerIdentity.read(from: $0)
                    }
                    try channel.pipeline.syncOperations.addHandler(
                        VarlinkConnectionHandler(service: api, identity: identity ?? nil, admission: admission))
                }
            }
            .bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true)
            .get()
        // Every local user may connect; the API decides what each may do.
        chmod(path, 0o666)
        return LocalAPIServer(channel: channel, path: path, api: api, queries: queries)
    }

    /// A reload changed who may read.
    func policyChanged(_ policy: AccessPolicy) {
        let api = self.api
        channel.eventLoop.execute { api.policyChanged(policy) }
    }

    func run() async throws {
        try? await gracefulShutdown()
        close()
        await queries.shutdown()
    }

    /// Stops taking calls and removes the socket file, once: a second unlink could remove the
    /// socket of a daemon started since.
    func close() {
        guard isClosed.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged else { return }
        channel.close(promise: nil)
        unlink(path)
    }
}

/// Another process answers on the socket: most likely a second daemon.
struct LocalAPISocketInUse: Error, CustomStringConvertible {
    var path: String
    var description: String {
        "another intrapushd answers on \(path); stop it first, or give this one another database (the socket lies beside it)"
    }
}

extension QueryRunner: LocalAPIQueries {}
extension OutboxCoordinator: LocalAPIOutbox {}

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
