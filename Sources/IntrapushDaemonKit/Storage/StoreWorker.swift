// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif
import IntrapushStore
import IntrapushSupport
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// The owner of the `NotificationStore`: commits batches, keeps the live-state row.
///
/// Every write runs on the push connection's event loop (`StoreExecutor`), in submission order,
/// so the store needs no lock, a batch's live-state row (when it is due, `LiveStateWriteSchedule`)
/// is written in the batch's own transaction (no extra fsync), and a push read on that loop is
/// committed there at once.
final class StoreWorker: PushCommitter, Sendable {
    let executor: StoreExecutor
    let store: NotificationStore
    /// The local API's marks, in slices between turns of pushes.
    let marks: LocalMarks
    private let checkpointer: Checkpointer?
    /// Where a burst's batches are synced (`syncBesideFrom`).
    private let walSyncThread: WorkerThread
    let liveState: NIOLockedValueBox<LiveState>
    /// Asks `RetentionService` for a pass; requests made while one waits count once.
    let pruneRequests = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    /// The live state's `receivedTotal` when memory was last released: a batch committed since
    /// shows as a larger total, so the push path keeps no flag of its own.
    private let receivedAtLastRelease: NIOLockedValueBox<Int64>
    private let logger: Logger
    /// Told on the writing loop after each commit of pushes, once its acknowledgements are out,
    /// with its counts (the local API's subscriptions, the session's status line); each must
    /// only hand the news to its own thread.
    private let commitObservers = NIOLockedValueBox<[@Sendable (BatchCounts) -> Void]>([])
    private let liveStateWrites = NIOLockedValueBox(LiveStateWriteSchedule())
    /// The clock of `liveStateWrites` (tests hold it still).
    private let now: @Sendable () -> NIODeadline
    /// Makes a batch committed with `.byCaller` durable (tests hold it back).
    private let syncWAL: @Sendable (WALFile) throws -> Void

    init(
        store: NotificationStore, initialState: LiveState, eventLoop: any EventLoop, logger: Logger,
        now: @escaping @Sendable () -> NIODeadline = { .now() },
        syncWAL: @escaping @Sendable (WALFile) throws -> Void = { try $0.sync() },
        checkpoints: CheckpointSettings = CheckpointSettings(),
        markSyncs: MarkSyncSchedule = LocalMarks.syncs
    ) {
        self.store = store
        self.now = now
        self.syncWAL = syncWAL
        self.logger = logger
        self.liveState = NIOLockedValueBox(initialState)
        self.receivedAtLastRelease = NIOLockedValueBox(initialState.receivedTotal)
        let executor = StoreExecutor(eventLoop: eventLoop)
        self.executor = executor
        let walSyncThread = WorkerThread(name: .walSync)
        self.walSyncThread = walSyncThread
        do {
            guard checkpoints.startsCheckpointer else { throw CheckpointerSwitchedOff() }
            let checkpointer = try Checkpointer(store: store, writer: executor, threshold: checkpoints.threshold)
            // Before the first commit, so the connection is not yet in use on the writing loop.
            // From here SQLite no longer checkpoints inside commits: only while ours runs.
            store.onCommit(walPages: checkpointer.committed(walPages:))
            self.checkpointer = checkpointer
        } catch {
            // SQLite's own checkpoint runs inside the commits then, at a moment we do not choose:
            // every batch keeps SQLite's sync in its commit (`commit`), the path SQLite answers for.
            let reason = error is CheckpointerSwitchedOff ? "\(error)" : "cannot open a second connection to the database: \(error)"
            logger.warning(
                "the checkpointer did not start (\(reason)): SQLite copies the write-ahead log back inside the commits, and every batch of pushes is synced in its own commit")
            try? store.checkpointAutomatically(pastPages: checkpoints.threshold)
            self.checkpointer = nil
        }
        // The marks' slices are synced beside the loop too, on the same terms as a burst's batch.
        let walFile = store.walFile
        let syncMarks: @Sendable () -> EventLoopFuture<Void> = {
            executor.runBeside(on: walSyncThread) {
                do { try syncWAL(walFile) } catch {
                    Self.stop(
                        "the disk failed to store committed marks; stopping, so that the daemon starts again from what is on disk",
                        error: error, logger: logger)
                }
            }
        }
        let stopMarks: @Sendable (any Error) -> Never = { error in
            Self.stop(
                "SQLite's sync of each commit could not be turned back on after a slice of marks; stopping, so that the daemon starts again from what is on disk",
                error: error, logger: logger)
        }
        marks = LocalMarks(executor: executor, store: store, syncs: markSyncs, syncBeside: checkpointer == nil ? nil : syncMarks, stop: stopMarks)
    }

    /// Why the checkpointer did not start when a test switched it off.
    private struct CheckpointerSwitchedOff: Error, CustomStringConvertible {
        var description: String { "switched off by INTRAPUSH_TEST_NO_CHECKPOINTER" }
    }

    /// Between the pieces of a long read elsewhere (the local API's searches): while a copy of
    /// the WAL is due, waits, at most `seconds`, for the WAL to start over (`Checkpointer`).
    func waitForWALToStartOver(atMost seconds: Double) {
        checkpointer?.waitForWALToStartOver(atMost: seconds)
    }

    /// A batch of at least this many pushes (a burst's) is synced on `walSyncThread` while the
    /// push loop reads the next frames; a smaller one is synced inside its commit, where the hop
    /// to that thread and back would cost more than the reading it lets overlap.
    static let syncBesideFrom = 64

    /// On the writing loop itself (the push connection's), the batch is committed now and the
    /// future comes back completed: no hop to another thread and back. A burst's batch is
    /// written now and synced beside (`syncBesideFrom`); its future completes once it is durable.
    /// Without the checkpointer every batch is synced in its commit (`init`).
    func commit(_ pushes: [Push], on eventLoop: any EventLoop) -> EventLoopFuture<CommittedBatch> {
        guard executor.eventLoop.inEventLoop else {
            return executor.runIfActive(eventLoop: eventLoop) { try self.finish(self.write(pushes, syncing: .inCommit)) }
        }
        guard pushes.count >= Self.syncBesideFrom, checkpointer != nil else {
            return eventLoop.makeCompletedFuture(Result { try executor.runNow { try finish(write(pushes, syncing: .inCommit)) } })
        }
        let written: WrittenBatch
        do {
            written = try executor.runNow { try write(pushes, syncing: .byCaller) }
        } catch let error as SyncInCommitNotRestored {
            Self.stop(
                "SQLite's sync of each commit could not be turned back on after a burst of pushes; stopping, so that the daemon starts again from what is on disk",
                error: error, logger: logger)
        } catch {
            return eventLoop.makeFailedFuture(error)
        }
        let walFile = store.walFile
        let logger = logger
        let syncWAL = syncWAL
        return executor.runBeside(on: walSyncThread) {
            do { try syncWAL(walFile) } catch {
                // The disk may have dropped what SQLite already shows as committed: going on would
                // acknowledge a redelivered push as a duplicate of a row that is not on disk.
                Self.stop(
                    "the disk failed to store committed pushes; stopping, so that the daemon starts again from what is on disk",
                    error: error, logger: logger)
            }
        }.map { self.finish(written) }
    }

    /// EX_IOERR: the unit restarts the daemon, and SQLite reads back what reached the disk.
    static let exitWhenSyncFailed: Int32 = 74

    /// A burst's batch cannot be made durable as promised: nothing of it was acknowledged, and
    /// what SQLite shows may not be what is on disk, so the daemon stops (`sync_failed`).
    fileprivate static func stop(_ message: Logger.Message, error: any Error, logger: Logger) -> Never {
        logger.critical(message, metadata: .event(.syncFailed, ["error": "\(error)"]))
        exit(exitWhenSyncFailed)
    }

    /// A batch committed, not yet told to anyone.
    struct WrittenBatch: Sendable {
        var outcomes: [StoreOutcome]
        var counts: BatchCounts?
        var startedAtUptimeNanoseconds: UInt64
        /// The store's commits its sync makes durable (`NotificationStore.commitsWritten`).
        var syncCarries: Int
    }

    private func write(_ pushes: [Push], syncing sync: WALSync) throws -> WrittenBatch {
        let liveState = self.liveState
        let started = NIODeadline.now().uptimeNanoseconds
        var counts: BatchCounts?
        let liveStateWrite = liveStateWrites.withLockedValue { $0.commitStarting(at: now()) }
        checkpointer?.writerBegan(burstBatch: sync == .byCaller)
        let outcomes = try store.store(pushes, syncing: sync) { outcomes in
            // Written in the batch's transaction from a copy; the shared state takes the same
            // counts only once the batch is durable (a throw never gets past `store`).
            let batch = BatchCounts(pushes: pushes, outcomes: outcomes, at: WallClock.nowMilliseconds())
            counts = batch
            guard liveStateWrite == .writeInCommit else { return nil }
            var state = liveState.withLockedValue { $0 }
            state.record(batch)
            return state
        }
        if case .writeLater(let deadline) = liveStateWrite {
            executor.eventLoop.scheduleTask(deadline: deadline) {
                self.writeLiveState(wasScheduled: true)
            }
        }
        let carries = sync == .inCommit ? store.lastCommitSyncedInCommit : store.commitsWritten
        return WrittenBatch(outcomes: outcomes, counts: counts, startedAtUptimeNanoseconds: started, syncCarries: carries)
    }

    /// The batch is durable: counted, and its news queued for the observers.
    private func finish(_ written: WrittenBatch) -> CommittedBatch {
        // A slice of marks written before the batch is durable with it.
        marks.pushSynced(through: written.syncCarries)
        if let counts = written.counts {
            liveState.withLockedValue { $0.record(counts) }
            // After the acknowledgements: the caller writes them before the loop runs this.
            executor.eventLoop.execute {
                for observer in self.commitObservers.withLockedValue({ $0 }) { observer(counts) }
            }
        }
        return CommittedBatch(
            outcomes: written.outcomes, startedAtUptimeNanoseconds: written.startedAtUptimeNanoseconds,
            finishedAtUptimeNanoseconds: NIODeadline.now().uptimeNanoseconds)
    }

    func acknowledged(_ count: Int) {
        amendLiveState { $0.ackedTotal += Int64(count) }
    }

    /// Calls `observer` after every commit of pushes.
    func observeCommits(_ observer: @escaping @Sendable (BatchCounts) -> Void) {
        commitObservers.withLockedValue { $0.append(observer) }
    }

    /// Changes the live state now and queues its write (a small transaction on the writing
    /// loop, after everything submitted before it); does not wait.
    func updateLiveState(_ change: (inout LiveState) -> Void) {
        liveState.withLockedValue { change(&$0) }
        writeLiveState()
    }

    /// Queues a write of the live state as it is in memory.
    private func writeLiveState(wasScheduled: Bool = false) {
        let store = self.store
        let liveState = self.liveState
        let liveStateWrites = self.liveStateWrites
        let now = self.now
        let logger = self.logger
        executor.submit { isActive in
            guard isActive else { return }
            liveStateWrites.withLockedValue { $0.written(at: now(), wasScheduled: wasScheduled) }
            let snapshot = liveState.withLockedValue { state in
                state.updatedAt = WallClock.nowMilliseconds()
                return state
            }
            do { try store.writeLiveState(snapshot) } catch {
                logger.warning("cannot write the live state", metadata: ["error": "\(error)"])
            }
        }
    }

    /// After pushes were stored, queues giving their memory back (called on a heartbeat, so
    /// an idle daemon shrinks without a timer of its own).
    func releaseMemoryIfUsed() {
        let received = liveState.withLockedValue { $0.receivedTotal }
        let hasCommitted = receivedAtLastRelease.withLockedValue { last in
            defer { last = received }
            return received != last
        }
        guard hasCommitted else { return }
        let store = self.store
        executor.submit { isActive in
            guard isActive else { return }
            store.releaseMemory()
        }
    }

    /// Writes the live state and waits until it is on disk (used on the way out).
    func flushLiveState() async {
        let store = self.store
        let liveState = self.liveState
        try? await executor.runIfActive {
            try store.writeLiveState(liveState.withLockedValue { $0 })
        }
    }

    /// A write that has not finished after this long is reported: in the live state (status,
    /// `Status`, metrics) and on the status line. Longer than any fsync of a healthy disk.
    static let stallReportedAfter: Duration = .seconds(1)

    /// The live state now, as `io.intrapush.Daemon.Status` tells it: with, while a write has
    /// run for `stallReportedAfter` or more, since when.
    var currentLiveState: LiveState {
        var state = liveState.withLockedValue { $0 }
        if let stalled = stalledFor, stalled >= Self.stallReportedAfter {
            state.commitRunningSince = WallClock.nowMilliseconds() - stalled.milliseconds
        }
        return state
    }

    /// Changes the live state in memory only; it reaches the file with the next write.
    func amendLiveState(_ change: (inout LiveState) -> Void) {
        liveState.withLockedValue { change(&$0) }
    }

    /// How long a write has waited or run without any finishing (nil when none waits): a hung
    /// database, read without waking the writing loop.
    var stalledFor: Duration? { executor.stalledFor }

    /// After the push connection: a batch whose sync is under way is still acknowledged.
    func shutdown() async {
        await executor.stop()
        await walSyncThread.shutdown()
        await checkpointer?.shutdown()
    }
}

/// What one committed batch adds to the live state's counters, counted once.
struct BatchCounts: Sendable {
    var received: Int64
    var stored: Int64 = 0
    var duplicates: Int64 = 0
    var lastPushAt: Int64?
    var committedAt: Int64

    init(pushes: [Push], outcomes: [StoreOutcome], at now: Int64) {
        received = Int64(pushes.count)
        for outcome in outcomes {
            switch outcome {
            case .inserted: stored += 1
            case .duplicate: duplicates += 1
            case .reply: break  // stored in the outbox, not a notification
            }
        }
        lastPushAt = pushes.last?.receivedAt
        committedAt = now
    }
}

extension LiveState {
    /// The one place the received, stored and duplicate counts grow (`STATUS=`, `intrapush
    /// status` and `/metrics` all read them here).
    mutating func record(_ batch: BatchCounts) {
        receivedTotal += batch.received
        duplicateTotal += batch.duplicates
        storedTotal += batch.stored
        lastPushAt = batch.lastPushAt ?? lastPushAt
        updatedAt = batch.committedAt
    }
}
