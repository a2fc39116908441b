// SPDX-License-Identifier: Apache-2.0

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
    /// The schedule's `readersShouldLetGo`, for long readers to wait on.
    private let readersShouldLetGo = ConditionLock(value: false)

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
        update { $0.writerBegan(burstBatch: burstBatch) }
    }

    /// Called on the writer's loop after each commit with the WAL's length.
    func committed(walPages pages: Int) {
        update { $0.committed(walFrames: pages) }
    }

    /// For a long reader that has just let its snapshot go, between two pieces: while a copy is
    /// due and the WAL has not started over, starts the copy that readers held back if none
    /// runs, and waits (at most `seconds`) for the WAL to start over before the reader takes a
    /// snapshot again; after a wait in vain readers go on until the next copy is due.
    func waitForWALToStartOver(atMost seconds: Double) {
        guard readersShouldLetGo.value else { return }
        update { $0.readerLetGo() }
        if readersShouldLetGo.lock(whenValue: false, timeoutSeconds: seconds) {
            readersShouldLetGo.unlock()
        } else {
            update { $0.readerWaitedInVain() }
        }
    }

    /// Changes the schedule, mirrors what long readers wait on, then does what it says.
    private func update(_ change: (inout CheckpointSchedule) -> [CheckpointSchedule.Action]) {
        let actions = schedule.withLockedValue { schedule in
            let actions = change(&schedule)
            if readersShouldLetGo.value != schedule.readersShouldLetGo {
                readersShouldLetGo.lock()
                readersShouldLetGo.unlock(withValue: schedule.readersShouldLetGo)
            }
            return actions
        }
        perform(actions)
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
        update { $0.copyEnded(at: place, walFrames: result?.walFrames, copied: result?.checkpointed) }
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
