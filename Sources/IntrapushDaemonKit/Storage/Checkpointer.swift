import IntrapushStore
import NIOConcurrencyHelpers
import NIOPosix

/// Copies the write-ahead log back into the database file on its own thread and connection, so
/// that no commit waits for a checkpoint.
///
/// SQLite's automatic checkpoint runs inside the commit that takes the WAL past 1,000 pages:
/// one push in a few hundred waited for the copy and its fsync, the tail of the push-to-ack
/// latency, and a burst paid for every page twice on one thread. Here the store's connection
/// reports the WAL's size after each commit; past the same 1,000 pages a PASSIVE checkpoint is
/// queued here, which never blocks the writer. Durability is unchanged: a commit is durable in
/// the WAL (synchronous=FULL) before it is acknowledged, and the checkpoint syncs the WAL before
/// and the database file after copying, as the automatic one does.
final class Checkpointer: Sendable {
    /// SQLite's own automatic checkpoint size.
    static let walPagesThreshold = 1000

    private let pool: NIOThreadPool
    private let connection: UncheckedConnection
    private let isQueued = NIOLockedValueBox(false)
    private let completed = NIOLockedValueBox(0)
    /// Whether the last checkpoint stopped short of the WAL's end: a reader still used the
    /// frames past where it stopped, and until one finishes the WAL cannot start over.
    private let isHeldBack = ConditionLock(value: false)

    /// Opens a second connection to the database at `path`, which must exist and be in WAL mode.
    init(path: String) throws {
        let connection = try SQLiteConnection(path: path, mode: .readWrite)
        try connection.execute("PRAGMA synchronous = FULL")
        self.connection = UncheckedConnection(connection)
        pool = NIOThreadPool(numberOfThreads: 1)
        pool.start()
        pool.submit { _ in ThreadName.checkpoint.apply() }
    }

    /// Checkpoints run so far (for tests and statistics).
    var checkpointsCompleted: Int { completed.withLockedValue { $0 } }

    /// Called after each commit with the WAL's length; queues at most one checkpoint at a time.
    func walGrew(toPages pages: Int) {
        guard pages >= Self.walPagesThreshold else { return }
        queue()
    }

    /// For a long reader that has just let its snapshot go: when the last checkpoint was held
    /// back by readers, waits (at most `seconds`) for the next one, which the next commit queues,
    /// so that the WAL is copied back and can start over before the reader takes a snapshot
    /// again. When no commit comes in that time the writer is idle: one is queued then.
    func waitForHeldBackCheckpoint(atMost seconds: Double) {
        guard isHeldBack.value else { return }
        if isHeldBack.lock(whenValue: false, timeoutSeconds: seconds) {
            isHeldBack.unlock()
        } else {
            queue()
        }
    }

    private func queue() {
        let wasQueued = isQueued.withLockedValue { queued in
            defer { queued = true }
            return queued
        }
        guard !wasQueued else { return }
        let connection = self.connection
        let isQueued = self.isQueued
        let completed = self.completed
        let isHeldBack = self.isHeldBack
        pool.submit { state in
            // Cleared first: growth reported while this one runs queues the next.
            isQueued.withLockedValue { $0 = false }
            guard case .active = state else { return }
            let result = try? connection.value.checkpointPassively()
            completed.withLockedValue { $0 += 1 }
            isHeldBack.lock()
            isHeldBack.unlock(withValue: result.map { $0.checkpointed < $0.walFrames } ?? false)
        }
    }

    /// Waits for a queued checkpoint, then stops the thread; the connection closes with the object.
    func shutdown() async {
        try? await pool.shutdownGracefully()
    }
}

/// The checkpointer's connection: used only on its one pool thread.
private struct UncheckedConnection: @unchecked Sendable {
    let value: SQLiteConnection

    init(_ value: SQLiteConnection) {
        self.value = value
    }
}
