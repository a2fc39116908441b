import IntrapushStore
import IntrapushSupport
import NIOCore

/// The shell of `MarkSchedule`: the local API's marks, committed on the push loop in slices
/// between turns of pushes (`StoreExecutor.submit` queues each slice behind what the loop has
/// to do). Confined to the push loop.
final class LocalMarks: @unchecked Sendable {
    /// Ids one slice marks at most: a slice takes about a millisecond and its sync.
    static let idsPerSlice = 64
    /// Between two slices, on the loop's timer: what the sockets brought goes first.
    static let pause: TimeAmount = .microseconds(100)

    private let executor: StoreExecutor
    private let store: NotificationStore
    private var schedule: MarkSchedule
    private var waiting: [MarkSchedule.JobID: (promise: EventLoopPromise<NotificationMarker.Outcome>, receipts: ReadReceiptTemplate?)] = [:]
    private var nextID = 0
    private var failure: (any Error)?

    init(executor: StoreExecutor, store: NotificationStore, idsPerSlice: Int = LocalMarks.idsPerSlice) {
        self.executor = executor
        self.store = store
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
                do {
                    let results = try executor.runNow { try store.markParts(marks, at: WallClock.nowMilliseconds()) }
                    perform(schedule.sliceCommitted(results))
                } catch {
                    failure = error
                    perform(schedule.sliceFailed())
                }
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
