// SPDX-License-Identifier: Apache-2.0

import CSQLite

/// The handler SQLite calls after each commit, boxed so that C can hold it.
final class WALHook {
    let handler: (_ walPages: Int) -> Void

    init(_ handler: @escaping (_ walPages: Int) -> Void) {
        self.handler = handler
    }
}

extension SQLiteConnection {
    /// After each commit on this connection, calls `handler` on the committing thread with the
    /// WAL's length in pages. This replaces SQLite's automatic checkpoint, which would otherwise
    /// copy the WAL back inside the commit that crossed 1,000 pages.
    package func onCommit(walPages handler: @escaping (_ walPages: Int) -> Void) {
        let hook = WALHook(handler)
        walHook = hook
        sqlite3_wal_hook(db, { context, _, _, pages in
            guard let context else { return SQLITE_OK }
            Unmanaged<WALHook>.fromOpaque(context).takeUnretainedValue().handler(Int(pages))
            return SQLITE_OK
        }, Unmanaged.passUnretained(hook).toOpaque())
    }

    /// Copies as much of the WAL into the database file as it can without waiting for the
    /// writer or readers (`SQLITE_CHECKPOINT_PASSIVE`).
    ///
    /// - Returns: the WAL's length in frames and how many of them are now in the database file.
    @discardableResult
    package func checkpointPassively() throws -> (walFrames: Int, checkpointed: Int) {
        var walFrames: Int32 = 0
        var checkpointed: Int32 = 0
        let code = sqlite3_wal_checkpoint_v2(db, nil, SQLITE_CHECKPOINT_PASSIVE, &walFrames, &checkpointed)
        // BUSY: another checkpoint is running; what it copies is copied all the same.
        guard code == SQLITE_OK || code == SQLITE_BUSY else {
            throw DatabaseError(connection: db, sql: "PRAGMA wal_checkpoint(PASSIVE)")
        }
        return (Int(walFrames), Int(checkpointed))
    }
}
