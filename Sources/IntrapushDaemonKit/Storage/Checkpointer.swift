import IntrapushStore
import NIOConcurrencyHelpers

/// Copies the write-ahead log back into the database file, the bulk on its own thread and
/// connection so that no commit waits for it, and the few frames committed meanwhile on the
/// writer's loop so that the WAL starts over (`CheckpointSchedule` says when and where).
///
/// SQLite's automatic checkpoint runs inside the commit that takes the WAL past 1,000 pages:
/// one push in a few hundred waited for the copy and its syncs, and a burst paid for every page
/// twice on one thread. Here the store's connection reports the WAL's length after each commit
/// instead, and the copies are PASSIVE: they never block the writer or a reader. Durability is
/// unchanged: a commit is durable in the WAL before it is acknowledged (synced in the commit, or
/// for a burst's batch beside it), and a copy syncs the WAL before and the database file after,
/// as the automatic one does. Only while one runs is SQLite's own checkpoint off (`StoreWorker`).
final class Checkpointer: Sendable {
    private let pool: WorkerThread
    private let connection: UncheckedConnection
    private let store: NotificationStore
    private let writer: StoreExecutor
    private let schedule: NIOLockedValueBox<CheckpointSchedule>
    private let completed = NIOLockedValueBox(0)
    /// Whether the last copy stopped short of the WAL's end: a reader still used the frames past
    /// where it stopped, and until one finishes the WAL cannot start over.
    private let isHeldBack = ConditionLock(value: false)

    /// Opens a second connection to `store`'s database, which must be in WAL mode; the rest of
    /// each copy runs on `writer`, where `store` is written. A copy starts once `threshold`
    /// frames are not yet copied (`CheckpointSchedule`).
    init(store: NotificationStore, writer: StoreExecutor, threshold: Int = CheckpointSchedule.defaultThreshold) throws {
        let connection = try SQLiteConnection(path: store.path, mode: .readWrite)
        try connection.execute("PRAGMA synchronous = FULL")
        self.connection = UncheckedConnection(connection)
        schedule = NIOLockedValueBox(CheckpointSchedule(threshold: threshold))
        self.store = store
        self.writer = writer
        pool = WorkerThread(name: .checkpoint)
    }

    /// Copies run so far, on either thread (for tests and statistics).
    var checkpointsCompleted: Int { completed.withLockedValue { $0 } }

    /// Called on the writer's loop before each batch is written.
    func writerBegan(burstBatch: Bool) {
        perform(schedule.withLockedValue { $0.writerBegan(burstBatch: burstBatch) })
    }

    /// Called on the writer's loop after each commit with the WAL's length.
    func committed(walPages pages: Int) {
        perform(schedule.withLockedValue { $0.committed(walFrames: pages) })
    }

    /// For a long reader that has just let its snapshot go: when the last copy was held back by
    /// readers, waits (at most `seconds`) for the next one, which the commits queue, so that the
    /// WAL is copied back and can start over before the reader takes a snapshot again. When none
    /// ends in that time the writer may be idle: a copy is queued then.
    func waitForHeldBackCheckpoint(atMost seconds: Double) {
        guard isHeldBack.value else { return }
        if isHeldBack.lock(whenValue: false, timeoutSeconds: seconds) {
            isHeldBack.unlock()
        } else {
            perform(schedule.withLockedValue { $0.readerWaitedInVain() })
        }
    }

    private func perform(_ actions: [CheckpointSchedule.Action]) {
        for action in actions {
            switch action {
            case .copyBeside:
                copyBeside()
            case .copyRestOnWriter:
                let store = self.store
                writer.submit { isActive in
                    let result = isActive ? try? store.checkpointPassively() : nil
                    self.copyEnded(at: .writer, result)
                }
            }
        }
    }

    private func copyBeside() {
        let connection = self.connection
        pool.submit { state in
            var result: (walFrames: Int, checkpointed: Int)?
            if case .active = state { result = try? connection.value.checkpointPassively() }
            self.copyEnded(at: .beside, result)
        }
    }

    private func copyEnded(at place: CheckpointSchedule.Place, _ result: (walFrames: Int, checkpointed: Int)?) {
        if result != nil { completed.withLockedValue { $0 += 1 } }
        isHeldBack.lock()
        isHeldBack.unlock(withValue: result.map { $0.checkpointed < $0.walFrames } ?? false)
        perform(schedule.withLockedValue {
            $0.copyEnded(at: place, walFrames: result?.walFrames, copied: result?.checkpointed)
        })
    }

    /// Waits for a queued copy beside the writer, then stops the thread; the connection closes
    /// with the object.
    func shutdown() async {
        await pool.shutdown()
    }
}

/// The checkpointer's connection: used only on its one pool thread.
private struct UncheckedConnection: @unchecked Sendable {
    let value: SQLiteConnection

    init(_ value: SQLiteConnection) {
        self.value = value
    }
}
