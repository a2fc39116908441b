// SPDX-License-Identifier: Apache-2.0

import CLinux
import CSQLite

/// Who makes a batch's commit durable.
package enum WALSync: Sendable {
    /// SQLite, inside the commit (`synchronous=FULL`).
    case inCommit
    /// The caller, by `NotificationStore.walFile`'s `sync()`, after the commit returned. SQLite
    /// commits at `synchronous=NORMAL`: without the commit's own sync, but with the sync of the
    /// log's header when the log starts over and those of a checkpoint, which `OFF` would skip
    /// too (then writes reaching the disk out of order can make recovery replay old frames
    /// under a new header, SQLite's ticket ff5be73dee).
    case byCaller
}

/// SQLite's sync in each commit could not be turned back on after a batch committed without it:
/// every later write would go unsynced, so the writer must stop rather than go on.
package struct SyncInCommitNotRestored: Error, CustomStringConvertible {
    package let cause: any Error

    package var description: String {
        "cannot turn SQLite's sync of each commit back on after a batch synced by the daemon: \(cause)"
    }
}

/// The daemon's durable store of pushes: one SQLite file in WAL mode with `synchronous=FULL`.
///
/// `@unchecked Sendable` so that it can be handed to the thread that owns it; it is NOT safe to use
/// from two threads. It must stay confined to the single writer thread that created or received it,
/// which performs every call. Statements are prepared once and reused for the store's lifetime.
package final class NotificationStore: @unchecked Sendable {
    /// The database file.
    package var path: String { connection.path }
    // Internal so that tests can check the per-connection pragmas.
    let connection: SQLiteConnection
    private let insertNotification: Statement
    private let upsertLiveState: Statement
    private let selectLiveState: Statement
    /// Made on the first `pruneBatch`, so that a store that never prunes prepares nothing for it.
    var retentionPruner: RetentionPruner?
    /// The outbox's statements, prepared on first use.
    package private(set) lazy var outbox = OutboxTable(connection: connection)
    /// The local API's marks, their statements prepared on first use.
    lazy var marker = NotificationMarker(connection: connection)
    /// The write-ahead log, for the sync of a batch committed with `.byCaller`.
    package let walFile: WALFile
    /// Commits that wrote to the log, counted once `onCommit` is set: a sync of the log that
    /// began after commit `n` makes commits up to `n` durable.
    package private(set) var commitsWritten = 0
    /// The last of those that SQLite synced in its commit, carrying every commit before it.
    package private(set) var lastCommitSyncedInCommit = 0
    /// Inside `syncedByCaller`: commits go without SQLite's sync.
    private var isSyncedByCaller = false
    /// Read receipts committed without SQLite's sync, by commit, with the first outbox row of
    /// each, oldest first: the outbox sends nothing from there on until that commit is durable.
    var receiptsNotYetDurable: [(commit: Int, firstRow: Int64)] = []

    static let insertSQL = """
        INSERT INTO notifications (message_id, received_at, payload, title, body, priority, link, recipients)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT(message_id) DO NOTHING
        """

    /// Opens the database at `path`, creating the file (not its directory) when missing, switches
    /// it to WAL and `synchronous=FULL`, and migrates it to `Schema.latestVersion`.
    ///
    /// - Throws: `DatabaseError` when the file cannot be opened, created or configured (its
    ///   directory missing, not writable, not a database); `SchemaVersionError` when a newer
    ///   intrapush wrote it.
    package init(path: String, busyTimeout: Duration = .milliseconds(5000)) throws {
        connection = try SQLiteConnection(path: path, mode: .readWriteCreate, busyTimeout: busyTimeout)
        try NotificationStore.configure(connection)
        try Schema.migrator.migrate(connection)
        walFile = try WALFile(databasePath: connection.path)
        insertNotification = try connection.prepare(NotificationStore.insertSQL, persistent: true)
        upsertLiveState = try connection.prepare(LiveState.upsertSQL, persistent: true)
        selectLiveState = try connection.prepare(LiveState.selectSQL(), persistent: true)
    }

    /// Stores a batch of pushes, and the live state when given, in ONE transaction: one commit,
    /// one fsync, however many pushes (the group commit).
    ///
    /// A push whose `messageID` is already stored, earlier or in this same batch, is `.duplicate`;
    /// a push without a message id is always inserted.
    ///
    /// - Returns: one outcome per push, in order.
    /// - Throws: the first error; then the transaction is rolled back, nothing of the batch is
    ///   stored, and the store is ready for the next call.
    package func store(_ pushes: [Push], liveState: LiveState?) throws -> [StoreOutcome] {
        try store(pushes) { _ in liveState }
    }

    /// Stores a batch like `store(_:liveState:)`, with the live state computed from the batch's
    /// outcomes (e.g. counting duplicates) and written in the same transaction.
    ///
    /// `makeLiveState` runs inside the transaction, before the commit: if the commit then fails,
    /// nothing is stored even though it ran.
    ///
    /// With `.byCaller`, SQLite commits without its sync (`WALSync.byCaller`): the batch is
    /// durable only once the caller's `walFile.sync()` returns, and must not be acknowledged
    /// before. Every other write keeps SQLite's own sync: `synchronous=FULL` is put back after the
    /// batch whatever happened in it, and when that fails this throws `SyncInCommitNotRestored`
    /// (the batch may be committed: its caller must stop, acknowledging nothing).
    package func store(
        _ pushes: [Push],
        syncing sync: WALSync = .inCommit,
        liveState makeLiveState: (_ outcomes: [StoreOutcome]) throws -> LiveState?
    ) throws -> [StoreOutcome] {
        guard !pushes.isEmpty else {
            if let liveState = try makeLiveState([]) { try writeLiveState(liveState) }
            return []
        }
        guard sync == .inCommit else {
            return try syncedByCaller { try store(pushes, syncing: .inCommit, liveState: makeLiveState) }
        }
        return try connection.transaction {
            var outcomes: [StoreOutcome] = []
            outcomes.reserveCapacity(pushes.count)
            for push in pushes {
                outcomes.append(try insert(push))
            }
            if let liveState = try makeLiveState(outcomes) { try liveState.write(with: upsertLiveState) }
            return outcomes
        }
    }

    /// Runs `body`'s commits without SQLite's sync of each (`synchronous=NORMAL`: the log's header
    /// and the checkpoints keep theirs), for the caller to sync the log after (`walFile`); puts
    /// `synchronous=FULL` back whatever happened in `body`, and when that fails throws
    /// `SyncInCommitNotRestored` (what `body` wrote may be committed: its caller must stop).
    func syncedByCaller<T>(_ body: () throws -> T) throws -> T {
        try connection.execute("PRAGMA synchronous = NORMAL")
        isSyncedByCaller = true
        // Every path comes back here (a `defer` could not report a failure).
        let result = Result { try body() }
        isSyncedByCaller = false
        do {
            try connection.execute("PRAGMA synchronous = FULL")
        } catch {
            throw SyncInCommitNotRestored(cause: error)
        }
        return try result.get()
    }

    /// Replaces the single live-state row.
    package func writeLiveState(_ state: LiveState) throws {
        try state.write(with: upsertLiveState)
    }

    /// The live-state row, `nil` when none has been written yet.
    package func readLiveState() throws -> LiveState? {
        try LiveState.read(with: selectLiveState)
    }

    /// Gives back the memory a burst left behind: SQLite's page cache now, the C heap's free
    /// pages by `malloc_trim` (freed memory otherwise stays with the process).
    package func releaseMemory() {
        connection.releaseMemory()
        malloc_trim(0)
    }

    /// Reports the WAL's length after each commit, instead of SQLite checkpointing inside the
    /// commit (see `Checkpointer`).
    /// Counts the commits (`commitsWritten`, `lastCommitSyncedInCommit`) from then on.
    package func onCommit(walPages handler: @escaping (_ walPages: Int) -> Void) {
        connection.onCommit { [unowned self] pages in
            // SQLite calls this only after a commit that wrote frames to the log.
            commitsWritten += 1
            if !isSyncedByCaller {
                // SQLite's sync carries every commit before it.
                lastCommitSyncedInCommit = commitsWritten
                receiptsNotYetDurable = []
            }
            handler(pages)
        }
    }

    /// Sets the WAL's length in pages past which SQLite checkpoints inside the commit (its
    /// automatic checkpoint, 1,000 unless told; off once `onCommit` is called).
    package func checkpointAutomatically(pastPages pages: Int) throws {
        try connection.execute("PRAGMA wal_autocheckpoint = \(pages)")
    }

    /// Copies what it can of the WAL into the database file without waiting for anyone
    /// (`SQLiteConnection.checkpointPassively`), on the writer's own connection.
    @discardableResult
    package func checkpointPassively() throws -> (walFrames: Int, checkpointed: Int) {
        try connection.checkpointPassively()
    }

    private func insert(_ push: Push) throws -> StoreOutcome {
        if let request = push.answersRequest {
            _ = try outbox.storeReply(rowID: request, reply: push.text, at: push.receivedAt)
            return .reply
        }
        let statement = insertNotification
        defer { statement.reset() }
        try statement.bind(push.messageID, at: 1)
        try statement.bind(push.receivedAt, at: 2)
        switch push.payload {
        case .text(let text): try statement.bind(text, at: 3)
        case .binary(let bytes): try statement.bind(bytes, at: 3)
        }
        try statement.bind(push.title, at: 4)
        try statement.bind(push.body, at: 5)
        try statement.bind(push.priority.map { Int64($0.rawValue) }, at: 6)
        try statement.bind(push.link, at: 7)
        try statement.bind(push.recipients, at: 8)
        try statement.step()
        // DO NOTHING leaves sqlite3_changes at 0: the message id was already there.
        return connection.changes == 0 ? .duplicate : .inserted(rowID: connection.lastInsertedRowID)
    }

    private static func configure(_ connection: SQLiteConnection) throws {
        // Only a database without tables takes this, and only before WAL mode writes the header:
        // new files shrink with `reclaimFreePages`; older ones keep auto_vacuum = NONE (no-op
        // here) and reuse the pages pruning frees, see `AutoVacuum`.
        try connection.execute("PRAGMA auto_vacuum = INCREMENTAL")
        let journalSQL = "PRAGMA journal_mode = WAL"
        let mode = try connection.text(journalSQL)
        guard mode?.lowercased() == "wal" else {
            throw DatabaseError(
                extendedResultCode: SQLITE_ERROR,
                message: "the database refused WAL mode and stays in \(mode ?? "unknown") journal mode",
                sql: journalSQL
            )
        }
        try connection.execute("PRAGMA synchronous = FULL")
        // A burst can outrun the checkpointer and grow the WAL; it is cut back to this when it
        // restarts from the beginning.
        try connection.execute("PRAGMA journal_size_limit = \(16 << 20)")
    }
}
