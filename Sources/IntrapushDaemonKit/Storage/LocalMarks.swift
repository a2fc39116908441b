import IntrapushStore
import IntrapushSupport
import NIOCore

/// The shell of `MarkSchedule`: the local API's marks, committed on the push loop in slices
/// between turns of pushes (each slice on the loop's timer, behind what its sockets brought).
/// While the checkpointer runs, a slice is committed without SQLite's sync and made durable by
/// the next push's sync or beside the loop (`MarkSyncSchedule`): the loop spends on it only the
/// marks' own work, and its marks are answered once it is durable. Confined to the push loop.
final class LocalMarks: @unchecked Sendable {
    /// Ids one slice marks at most: short enough that a push arriving during a slice hardly
    /// waits for it, and its pages add little to the push's sync it rides on.
    static let idsPerSlice = 16
    /// Between two slices, on the loop's timer: what the sockets brought goes first.
    static let pause: TimeAmount = .microseconds(100)
    /// While pushes flow, a slice waits for a push's sync, at most a few pushes' time.
    static let syncs = MarkSyncSchedule(rideFor: .milliseconds(2), flowWindow: .milliseconds(100))

    private let executor: StoreExecutor
    private let store: NotificationStore
    /// Syncs the log beside the loop; nil: each slice is synced in its commit.
    private let syncBeside: (@Sendable () -> EventLoopFuture<Void>)?
    /// The daemon stops: what a slice wrote may be committed without SQLite's sync.
    private let stop: @Sendable (any Error) -> Never
    private var schedule: MarkSchedule
    private var syncs: MarkSyncSchedule
    /// The slice written and not yet durable.
    private var written: [MarkPart.Result]?
    private var waiting: [MarkSchedule.JobID: (promise: EventLoopPromise<NotificationMarker.Outcome>, receipts: ReadReceiptTemplate?)] = [:]
    private var nextID = 0
    private var failure: (any Error)?

    init(
        executor: StoreExecutor, store: NotificationStore, idsPerSlice: Int = LocalMarks.idsPerSlice,
        syncs: MarkSyncSchedule = LocalMarks.syncs,
        syncBeside: (@Sendable () -> EventLoopFuture<Void>)?, stop: @escaping @Sendable (any Error) -> Never
    ) {
        self.syncs = syncs
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
                guard syncBeside != nil else {
                    perform(schedule.sliceCommitted(results))
                    continue
                }
                written = results
                perform(syncs.sliceWritten(commit: store.commitsWritten, at: .now()))
            case .complete(let job, let outcome):
                waiting.removeValue(forKey: job)?.promise.succeed(outcome)
            case .fail(let job):
                waiting.removeValue(forKey: job)?.promise.fail(failure ?? StoreExecutor.Stopped())
            }
        }
    }

    /// A push's commit was synced: every commit up to `commit` is durable (on the push loop).
    func pushSynced(through commit: Int) {
        perform(syncs.pushSynced(through: commit, at: .now()))
    }

    private func perform(_ actions: [MarkSyncSchedule.Action]) {
        for action in actions {
            switch action {
            case .armTimer(let commit, let deadline):
                executor.submit(after: deadline - .now()) { isActive in
                    guard isActive else { return self.stopped() }
                    self.perform(self.syncs.waitEnded(for: commit, at: .now()))
                }
            case .syncBeside(let commit):
                syncBeside?().assumeIsolated().whenSuccess { self.perform(self.syncs.synced(through: commit)) }
            case .sliceDurable:
                guard let results = written else { continue }
                written = nil
                perform(schedule.sliceCommitted(results))
            }
        }
    }

    /// The daemon stops: what waits is not marked, and its callers are told.
    private func stopped() {
        for (_, entry) in waiting { entry.promise.fail(StoreExecutor.Stopped()) }
        waiting = [:]
    }
}
