// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif
import CLinux
import IntrapushInterface
import NIOCore
import Synchronization

/// Where callers' reads run: beside the store, never in front of it, on two lanes of their own
/// (`QuerySchedule` says which runs when). Each lane is a thread with its own read-only
/// connection (WAL readers never block the writer): the quick lane for index lookups and reads
/// of at most `idsPerQuickPiece` ids, the scan lane, at a low CPU priority, for searches and
/// whatever else walks more rows, read a piece of ids at a time, each piece its own transaction. A call whose caller has gone is not read on: its next piece does
/// not run, and the piece under way is interrupted (SQLite's progress handler).
final class QueryRunner: @unchecked Sendable {
    typealias Busy = QuerySchedule.Busy
    /// The caller went before the read ended.
    struct Cancelled: Error {}

    /// A few milliseconds of a search per piece.
    static let idsPerScanPiece: Int64 = 32768
    /// The most ids a read walks on the quick lane, filters and all: about a millisecond.
    static let idsPerQuickPiece: Int64 = 4096

    let databasePath: String
    let eventLoop: any EventLoop
    /// Between the pieces of a search, with no snapshot held.
    let betweenScanPieces: @Sendable () -> Void
    private let lanes: [QuerySchedule.Lane: Lane]
    /// On the event loop: the schedule, and the jobs it names.
    private var schedule: QuerySchedule
    private var jobs: [QuerySchedule.JobID: Job] = [:]
    private var nextID = 0

    /// A read handed over: its next piece, run on its lane's thread, which answers whether
    /// another follows (the last completes the caller's future, on the lane's thread).
    private struct Job {
        var piece: @Sendable (NotificationReader) -> PieceEnd
        var fail: @Sendable (any Error) -> Void
        var flag: CancelFlag
    }

    enum PieceEnd: Sendable {
        case more
        case done
    }

    init(databasePath: String, eventLoop: any EventLoop, maximumWaiting: Int, betweenScanPieces: @escaping @Sendable () -> Void) {
        self.databasePath = databasePath
        self.eventLoop = eventLoop
        self.betweenScanPieces = betweenScanPieces
        schedule = QuerySchedule(maximumWaiting: maximumWaiting)
        lanes = [
            .quick: Lane(name: .query, databasePath: databasePath, isBackground: false),
            .scan: Lane(name: .scan, databasePath: databasePath, isBackground: true),
        ]
    }

    /// One read for `user` on the quick lane, until `call` ends; fails with `Busy` when too
    /// many of theirs wait already. Completes on the event loop.
    func run<T: Sendable>(
        for user: UInt32, until call: (any CallLifetime)? = nil, _ work: @escaping @Sendable (NotificationReader) throws -> T
    ) -> EventLoopFuture<T> {
        submit(for: user, on: .quick, until: call) { promise, flag in
            { reader in
                do {
                    promise.succeed(try work(reader))
                } catch {
                    promise.fail(flag.isSet ? Cancelled() : error)
                }
                return .done
            }
        }
    }

    /// A search for `user` on the scan lane, `piece` called for each piece until it answers
    /// a result, with other people's pieces in between.
    func scan<T: Sendable>(
        for user: UInt32, until call: (any CallLifetime)? = nil, _ piece: @escaping @Sendable (NotificationReader) throws -> T?
    ) -> EventLoopFuture<T> {
        submit(for: user, on: .scan, until: call) { promise, flag in
            { reader in
                do {
                    guard let result = try piece(reader) else { return .more }
                    promise.succeed(result)
                } catch {
                    // Interrupted because its caller went: no failure of the database's.
                    promise.fail(flag.isSet ? Cancelled() : error)
                }
                return .done
            }
        }
    }

    /// Lets the reads under way finish, then ends the lanes' threads.
    func shutdown() async {
        for lane in lanes.values { await lane.thread.shutdown() }
    }

    private func submit<T: Sendable>(
        for user: UInt32, on lane: QuerySchedule.Lane, until call: (any CallLifetime)?,
        _ makePiece: (EventLoopPromise<T>, CancelFlag) -> @Sendable (NotificationReader) -> PieceEnd
    ) -> EventLoopFuture<T> {
        eventLoop.assertInEventLoop()
        let promise = eventLoop.makePromise(of: T.self)
        nextID += 1
        let id = nextID
        let flag = CancelFlag()
        jobs[id] = Job(piece: makePiece(promise, flag), fail: { promise.fail($0) }, flag: flag)
        let actions: [QuerySchedule.Action]
        do {
            actions = try schedule.submitted(id, by: user, on: lane)
        } catch {
            jobs[id] = nil
            promise.fail(error)
            return promise.futureResult
        }
        call?.onEnd { [weak self] in self?.cancel(id) }
        perform(actions)
        return promise.futureResult
    }

    private func cancel(_ id: QuerySchedule.JobID) {
        guard let job = jobs[id] else { return }
        job.flag.set()
        let (wasWaiting, actions) = schedule.cancelled(id)
        if wasWaiting {
            jobs[id] = nil
            job.fail(Cancelled())
        }
        perform(actions)
    }

    private func perform(_ actions: [QuerySchedule.Action]) {
        for case .run(let id, let laneName) in actions {
            guard let job = jobs[id], let lane = lanes[laneName] else { continue }
            let between = laneName == .scan ? betweenScanPieces : nil
            lane.thread.submit { state in
                let end: PieceEnd
                if case .active = state, !job.flag.isSet {
                    end = lane.runPiece(job)
                    between?()
                } else {
                    job.fail(state == .active ? Cancelled() : WorkerThread.Stopped())
                    end = .done
                }
                self.eventLoop.execute { self.pieceEnded(id, end) }
            }
        }
    }

    private func pieceEnded(_ id: QuerySchedule.JobID, _ end: PieceEnd) {
        var end = end
        if end == .more, let job = jobs[id], job.flag.isSet {
            job.fail(Cancelled())
            end = .done
        }
        if end == .done { jobs[id] = nil }
        perform(schedule.pieceFinished(id, isDone: end == .done))
    }

    /// One lane: its thread and, opened at first use there, its connection.
    private final class Lane: @unchecked Sendable {
        let thread: WorkerThread
        let databasePath: String
        let isBackground: Bool
        /// The running piece's flag, read by the progress handler: used on the thread only.
        private var currentFlag: CancelFlag?
        private var reader: NotificationReader?
        private var isPrepared = false
        /// The scan lane's niceness: about a tenth of the CPU of a thread at 0 when both want it.
        static let searchNice: Int32 = 10

        init(name: ThreadName, databasePath: String, isBackground: Bool) {
            thread = WorkerThread(name: name)
            self.databasePath = databasePath
            self.isBackground = isBackground
        }

        /// On the thread: the job's next piece.
        func runPiece(_ job: Job) -> PieceEnd {
            let reader: NotificationReader
            do {
                reader = try openReader()
            } catch {
                job.fail(error)
                return .done
            }
            currentFlag = job.flag
            defer { currentFlag = nil }
            return job.piece(reader)
        }

        private func openReader() throws -> NotificationReader {
            if !isPrepared {
                // A search gives way to the push loop and the event loops (nice), but not so far
                // that it can be left holding a lock they need: the process's one malloc arena
                // and SQLite's lock of the WAL index are shared with the writer, and under
                // SCHED_IDLE a search preempted inside either held a push for tens of ms.
                if isBackground {
                    setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(intrapush_gettid()), Self.searchNice)
                }
                isPrepared = true
            }
            if let reader { return reader }
            let opened = try NotificationReader(path: databasePath)
            // The parallel scan would start threads of libdispatch's pool in the daemon and take
            // every core; here a search runs on this one thread, a piece at a time.
            opened.parallelScanThreshold = .max
            opened.connection.interrupt(every: 1000) { [unowned self] in self.currentFlag?.isSet ?? false }
            reader = opened
            return opened
        }
    }
}

/// Set once a read's caller has gone; read by its lane's thread.
final class CancelFlag: Sendable {
    private let value = Atomic(false)
    func set() { value.store(true, ordering: .relaxed) }
    var isSet: Bool { value.load(ordering: .relaxed) }
}

/// What a read lasts at most: the call that asked for it (`VarlinkCallContext`).
protocol CallLifetime: AnyObject {
    /// Runs `body` once the call ended (at once when it has).
    func onEnd(_ body: @escaping () -> Void)
}

extension VarlinkCallContext: CallLifetime {}
