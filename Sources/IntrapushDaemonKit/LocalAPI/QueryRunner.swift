#if canImport(Glibc)
import Glibc
#endif
import IntrapushInterface
import CLinux
import NIOCore

/// Where callers' reads run: beside the store, never in front of it. One thread of its own,
/// at a lower CPU priority than the daemon's event loops, with its own read-only
/// connection (WAL readers never block the writer), one query at a time per user and a few
/// more waiting; past that a user is told to wait. Name look-ups (NSS) run here too.
final class QueryRunner: @unchecked Sendable {
    struct Busy: Error {}
    /// A few milliseconds of a search per piece.
    static let idsPerScanPiece: Int64 = 32768

    let databasePath: String
    let eventLoop: any EventLoop
    let maximumWaiting: Int
    /// Between the pieces of a scan, with no snapshot held.
    let betweenScanPieces: @Sendable () -> Void
    private let pool = WorkerThread(name: .query)
    /// Used on the pool's thread only.
    private var reader: NotificationReader?
    private var isThreadNiced = false
    /// On the event loop: users with a query running, and what each has waiting.
    private var running: Set<UInt32> = []
    private var waiting: [UInt32: [() -> Void]] = [:]

    init(databasePath: String, eventLoop: any EventLoop, maximumWaiting: Int, betweenScanPieces: @escaping @Sendable () -> Void) {
        self.databasePath = databasePath
        self.eventLoop = eventLoop
        self.maximumWaiting = maximumWaiting
        self.betweenScanPieces = betweenScanPieces
    }

    /// Runs `work` for `user` once their earlier queries finished; fails with `Busy` when too
    /// many wait already. Completes on the event loop.
    func run<T: Sendable>(for user: UInt32, _ work: @escaping @Sendable (NotificationReader) throws -> T) -> EventLoopFuture<T> {
        eventLoop.assertInEventLoop()
        let promise = eventLoop.makePromise(of: T.self)
        let start = {
            self.pool.submit { state in
                guard case .active = state else { return promise.fail(WorkerThread.Stopped()) }
                promise.completeWith(Result { try work(self.openReader()) })
            }
        }
        if running.contains(user) {
            guard waiting[user, default: []].count < maximumWaiting else {
                promise.fail(Busy())
                return promise.futureResult
            }
            waiting[user, default: []].append(start)
        } else {
            running.insert(user)
            start()
        }
        promise.futureResult.whenComplete { _ in self.finished(user) }
        return promise.futureResult
    }

    /// Names for a caller's numbers, off the event loop.
    func caller(_ identity: PeerIdentity) -> EventLoopFuture<Caller> {
        run(for: identity.userID) { _ in CallerDirectory.caller(identity) }
    }

    func shutdown() async {
        await pool.shutdown()
    }

    private func finished(_ user: UInt32) {
        if var queue = waiting[user], !queue.isEmpty {
            let next = queue.removeFirst()
            waiting[user] = queue.isEmpty ? nil : queue
            next()
        } else {
            running.remove(user)
        }
    }

    /// The pool's connection, opened at first use (the database exists by then: the daemon
    /// opened it before it listened).
    private func openReader() throws -> NotificationReader {
        if !isThreadNiced {
            // A user's long search must not take the CPU from the push loop and the event
            // loop on a small machine: SCHED_IDLE (for this thread alone, on Linux) runs it only
            // when they have nothing to do; where it is refused, nice 19.
            if intrapush_schedule_thread_idle() != 0 {
                setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(intrapush_gettid()), 19)
            }
            isThreadNiced = true
        }
        if let reader { return reader }
        let opened = try NotificationReader(path: databasePath)
        // The parallel scan would start threads of libdispatch's pool in the daemon and take
        // every core; here a search runs on this one thread.
        opened.parallelScanThreshold = .max
        opened.scanPieces = ScanPieces(ids: Self.idsPerScanPiece, between: betweenScanPieces)
        reader = opened
        return opened
    }
}
