// SPDX-License-Identifier: Apache-2.0

import IntrapushStore
import IntrapushSupport
import NIOCore

/// The shell of `MarkSchedule`: the local API's marks, committed on the push loop in slices
/// between turns of pushes (each slice on the loop's timer, behind what its sockets brought).
/// While the checkpointer runs, a slice is committed without SQLite's sync and made durable by
/// the next push's sync or beside the loop (`MarkSyncSchedule`): the loop spends on it only the
/// marks' own work, the next slice begins while the last one syncs, and a mark is answered,
/// its receipts let go to the server, once the slice that ended it is durable.
/// Confined to the push loop.
final class LocalMarks: @unchecked Sendable {
    /// Rows a slice examines at most while pushes flow: a push arriving during a slice hardly
    /// waits for it, and its pages add little to the push's sync it rides on.
    static let rowsWhilePushesFlow = 16
    /// Rows a slice examines at most when no push came lately: a mark of all goes at the pace
    /// of one long transaction, and a push that comes waits for one slice.
    static let rowsWhenQuiet = 512
    /// Between two slices, on the loop's timer: what the sockets brought goes first. While
    /// pushes flow, longer: a mark of all takes a small share of the loop (and of the log's
    /// growth, which each push's sync and the checkpoints pay for), not all that is left.
    static let pause: (whilePushesFlow: TimeAmount, whenQuiet: TimeAmount) = (.milliseconds(1), .microseconds(100))
    /// While pushes flow, a slice waits for a push's sync, at most a few pushes' time.
    static let syncs = MarkSyncSchedule(rideFor: .milliseconds(2), flowWindow: .milliseconds(100))

    private let executor: StoreExecutor
    private let store: NotificationStore
    private let rows: (whilePushesFlow: Int, whenQuiet: Int)
    /// Syncs the log beside the loop; nil: each slice is synced in its commit.
    private let syncBeside: (@Sendable () -> EventLoopFuture<Void>)?
    /// The daemon stops: what a slice wrote may be committed without SQLite's sync.
    private let stop: @Sendable (any Error) -> Never
    private var schedule = MarkSchedule()
    private var syncs: MarkSyncSchedule
    /// Marks done whose last slice is not yet durable, by that slice's commit, oldest first.
    private var notYetDurable: [(commit: Int, job: MarkSchedule.JobID, outcome: NotificationMarker.Outcome)] = []
    private var waiting: [MarkSchedule.JobID: (promise: EventLoopPromise<NotificationMarker.Outcome>, receipts: ReadReceiptTemplate?)] = [:]
    private var nextID = 0
    private var failure: (any Error)?

    init(
        executor: StoreExecutor, store: NotificationStore,
        rows: (whilePushesFlow: Int, whenQuiet: Int) = (LocalMarks.rowsWhilePushesFlow, LocalMarks.rowsWhenQuiet),
        syncs: MarkSyncSchedule = LocalMarks.syncs,
        syncBeside: (@Sendable () -> EventLoopFuture<Void>)?, stop: @escaping @Sendable (any Error) -> Never
    ) {
        self.syncs = syncs
        self.executor = executor
        self.store = store
        self.rows = rows
        self.syncBeside = syncBeside
        self.stop = stop
    }

    /// Queues a mark of `person`'s; completes on the push loop once all of it is durable.
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
                let pause = syncs.pushesFlow(at: .now()) ? Self.pause.whilePushesFlow : Self.pause.whenQuiet
                executor.submit(after: pause) { isActive in
                    guard isActive else { return self.stopped() }
                    let rows = self.syncs.pushesFlow(at: .now()) ? self.rows.whilePushesFlow : self.rows.whenQuiet
                    self.perform(self.schedule.sliceDue(rows: rows))
                }
            case .commit(let parts):
                commit(parts)
            case .complete(let job, let outcome):
                guard syncBeside != nil else {
                    waiting.removeValue(forKey: job)?.promise.succeed(outcome)
                    continue
                }
                notYetDurable.append((store.commitsWritten, job, outcome))
            case .fail(let job, let kept):
                let error = failure ?? StoreExecutor.Stopped()
                waiting.removeValue(forKey: job)?.promise.fail(kept.marked > 0 ? MarkPartlyDone(kept: kept, cause: error) : error)
            }
        }
    }

    private func commit(_ parts: [MarkSchedule.Part]) {
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
            return perform(schedule.sliceFailed())
        }
        // The marks it ended are answered once it is durable; the next slice need not wait.
        perform(schedule.sliceCommitted(results))
        if syncBeside != nil { perform(syncs.sliceWritten(commit: store.commitsWritten, at: .now())) }
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
            case .durable(let commit):
                store.receiptsDurable(through: commit)
                guard let first = notYetDurable.first, first.commit <= commit else { continue }
                let done = notYetDurable.prefix { $0.commit <= commit }
                notYetDurable.removeFirst(done.count)
                for mark in done { waiting.removeValue(forKey: mark.job)?.promise.succeed(mark.outcome) }
            }
        }
    }

    /// The daemon stops: what waits is not marked (or not known durable), and its callers are told.
    private func stopped() {
        for (_, entry) in waiting { entry.promise.fail(StoreExecutor.Stopped()) }
        waiting = [:]
        notYetDurable = []
    }
}

/// A mark in several slices failed after some of them were committed: those stay marked.
struct MarkPartlyDone: Error {
    let kept: NotificationMarker.Outcome
    let cause: any Error
}
