// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif
import IntrapushSupport

/// The store's write-ahead log, opened a second time so that a commit made without SQLite's
/// sync (`NotificationStore.store(_:syncing:liveState:)` with `.byCaller`) can be made durable
/// from another thread while the writer goes on: `fdatasync` flushes the file, whichever
/// descriptor names it, and touches nothing SQLite keeps in memory.
///
/// The file stays the same while the store's connection is open: SQLite deletes it and creates
/// it again only when the last connection closes or the journal mode changes.
package final class WALFile: Sendable {
    private let path: String
    private let descriptor: Int32

    /// Opens `databasePath`-wal, which must exist (the store is in WAL mode and has read it),
    /// and syncs its directory once: SQLite's first sync of a new log does that, and with the
    /// sync left to this object SQLite may never make one.
    package init(databasePath: String) throws(DurableFile.Failure) {
        path = databasePath + "-wal"
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw DurableFile.Failure(action: "cannot open \(path)", code: errno) }
        try DurableFile.syncDirectory(DurableFile.directory(of: path))
    }

    deinit {
        close(descriptor)
    }

    /// Makes every commit written to the log so far durable. A failure means the disk may have
    /// dropped those writes: nothing they carry may be acknowledged, and what SQLite shows may
    /// no longer be what is on disk.
    package func sync() throws(DurableFile.Failure) {
        while fdatasync(descriptor) != 0 {
            guard errno == EINTR else { throw DurableFile.Failure(action: "cannot sync \(path)", code: errno) }
        }
    }
}
