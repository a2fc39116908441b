// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import TestSupport
import Glibc
#endif
import Testing

@testable import IntrapushInterface

/// The agent may start before the daemon ever ran, when not even the database's directory exists:
/// it must still wait on inotify (no timer), and notice the directory, then the file.
@Suite("Waiting for a database whose directory does not exist yet")
struct DatabaseChangeWatcherTests {
    @Test("the directory's creation, then the file's, wake it; no timer meanwhile")
    func missingDirectory() throws {
        let temporary = try TemporaryDirectory("watch")
        let base = temporary.path
        let directory = base + "/state/intrapush"
        let watcher = DatabaseChangeWatcher(databasePath: directory + "/notifications.sqlite3", outputDescriptor: -1)
        #expect(watcher.isUsingInotify, "watching an ancestor, not falling back to a timer")
        #expect(watcher.wait(timeoutMilliseconds: 0) == .timedOut)
        #expect(mkdir(base + "/state", 0o755) == 0)
        // An ancestor's child appeared, but not the database's directory yet.
        #expect(watcher.wait(timeoutMilliseconds: 200) == .timedOut)
        #expect(mkdir(directory, 0o755) == 0)
        #expect(watcher.wait(timeoutMilliseconds: 5000) == .databaseChanged)
        let file = open(directory + "/notifications.sqlite3", O_CREAT | O_WRONLY, 0o644)
        close(file)
        #expect(watcher.wait(timeoutMilliseconds: 5000) == .databaseChanged)
    }
}
