import IntrapushStore
import IntrapushSupport
import NIOCore

/// The shell of `MarkSchedule`: the local API's marks, committed on the push loop in slices
/// between turns of pushes (each slice on the loop's timer, behind what its sockets brought).
/// While the checkpointer runs, a slice is synced beside the loop as a burst's batch is: the loop
/// spends on it only the marks' own work, and its marks are answered once the sync returned.
/// Confined to the push loop.
final class LocalMarks: @unchecked Sendable {
    /// Ids one slice marks at most: a slice takes about a millisecond and its sync.
    static let idsPerSlice = 64
    /// Between two slices, on the loop's timer: what the sockets brought goes first.
    static let pause: TimeAmount = .microseconds(100)

    private let executor: StoreExecutor
    private let store: NotificationStore
    /// Syncs the log beside the loop; nil: each slice is synced in its commit.
    private let syncBeside: (@Sendable () -> EventLoopFuture<Void>)?
    /// The daemon stops: what a slice wrote may be committed without SQLite's sync.
    private let stop: @Sendable (any Error) -> Never
    private var schedule: MarkSchedule
    private var waiting: [MarkSchedule.JobID: (promise: EventLoopPromise<NotificationMarker.Outcome>, receipts: ReadReceiptTemplate?)] = [:]
    private var nextID = 0
    private var failure: (any Error)?

    init(
        executor: StoreExecutor, store: NotificationStore, idsPerSlice: Int = LocalMarks.idsPerSlice,
        syncBeside: (@Sendable () -> EventLoopFuture<Void>)?, stop: @escaping @Sendable (any Error) -> Never
    ) {
        self.executor = executor
        self.store = store
        self.syncBeside = syncBeside
        self.stop = stop
        schedule = MarkSchedule(idsPerSlice: idsPerSlice)
    }

    /// Queues a mark of `person`'s; completes on the push loop once all of it is committed.
    func mark(_ request: MarkSchedule.Request, person: Int64, viewer: Viewer, receipts: ReadReceiptTemplate?)
        -> EventLoopFuture<NotificationMarker.Outcome>
    {
        let loop = executor.eventLoop
        loop.preconditionInEventLoop()
        let promise = loop.makePromise(of: NotificationMarker.Outcome.self)
        nextID += 1
        waiting[nextID] = (promise, receipts)
        perform(schedule.markRequested(nextID, person: person, viewer: viewer, request: request))
        return promise.futureResult
    }

    private func perform(_ actions: [MarkSchedule.Action]) {
        for action in actions {
            switch action {
            case .scheduleSlice:
                executor.submit(after: Self.pause) { isActive in
                    guard isActive else { return self.stopped() }
                    self.perform(self.schedule.sliceDue())
                }
            case .commit(let parts):
                let marks = parts.map { MarkPart(viewer: $0.viewer, receipts: waiting[$0.job]?.receipts, work: $0.work) }
                let results: [MarkPart.Result]
                do {
                    results = try executor.runNow {
                        try store.markParts(marks, at: WallClock.nowMilliseconds(), syncing: syncBeside == nil ? .inCommit : .byCaller)
                    }
                } catch let error as SyncInCommitNotRestored {
                    stop(error)
                } catch {
                    failure = error
                    perform(schedule.sliceFailed())
                    continue
                }
                guard let syncBeside else {
                    perform(schedule.sliceCommitted(results))
                    continue
                }
                syncBeside().assumeIsolated().whenSuccess { self.perform(self.schedule.sliceCommitted(results)) }
            case .complete(let job, let outcome):
                waiting.removeValue(forKey: job)?.promise.succeed(outcome)
            case .fail(let job):
                waiting.removeValue(forKey: job)?.promise.fail(failure ?? StoreExecutor.Stopped())
            }
        }
    }

    /// The daemon stops: what waits is not marked, and its callers are told.
    private func stopped() {
        for (_, entry) in waiting { entry.promise.fail(StoreExecutor.Stopped()) }
        waiting = [:]
    }
}
