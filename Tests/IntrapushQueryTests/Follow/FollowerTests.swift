// SPDX-License-Identifier: Apache-2.0

import TestSupport
import Foundation
import Testing

@testable import IntrapushQuery
@testable import IntrapushInterface
@testable import IntrapushStore

@Suite struct FollowerTests {
    /// A commit by another connection wakes the watcher through inotify, without a timer.
    @Test("the watcher wakes on another connection's commit")
    func watcherWakes() throws {
        let fixture = try QueryFixture(count: 1)
        let watcher = DatabaseChangeWatcher(databasePath: fixture.path, outputDescriptor: -1)
        #expect(watcher.isUsingInotify)
        // Closing the fixture's connections may still be reported (seen once under a loaded
        // machine); the watcher must then fall quiet, with no timer of its own.
        var settled = false
        for _ in 0..<20 where !settled { settled = watcher.wait(timeoutMilliseconds: 50) == .timedOut }
        #expect(settled, "the watcher never fell quiet without a commit")
        let store = try NotificationStore(path: fixture.path)
        _ = try store.store([.text("new", id: "n-1")], liveState: nil)
        #expect(watcher.wait(timeoutMilliseconds: 5000) == .databaseChanged)
    }

    /// follow prints the backlog, then what another process commits, in order, and stops when
    /// the output goes away.
    @Test("follow emits the backlog, then new rows as they are committed")
    func followsCommits() async throws {
        let fixture = try QueryFixture(count: 5)
        let path = fixture.path
        let received = LockedRecords()
        let thread = Thread {
            let reader = try! NotificationReader(path: path)
            let watcher = DatabaseChangeWatcher(databasePath: path, outputDescriptor: -1)
            let ending = try! Follower(reader: reader, watcher: watcher).run(backlog: 2) { records in
                received.append(records)
                return received.count < 5
            }
            received.end(ending)
        }
        thread.start()
        try await waitUntil { received.count == 2 }
        let store = try NotificationStore(path: path)
        for index in 1...3 {
            _ = try store.store([.text("new \(index)", id: "n-\(index)")], liveState: nil)
        }
        try await waitUntil { received.ending != nil }
        #expect(received.ids == [4, 5, 6, 7, 8])
        #expect(received.ending == .outputClosed)
    }

    private func waitUntil(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw CancellationError() }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}

private final class LockedRecords: @unchecked Sendable {
    private let lock = NSLock()
    private var records: [NotificationRecord] = []
    private var endedWith: Follower.Ending?
    func append(_ more: [NotificationRecord]) { lock.withLock { records += more } }
    func end(_ ending: Follower.Ending) { lock.withLock { endedWith = ending } }
    var ending: Follower.Ending? { lock.withLock { endedWith } }
    var count: Int { lock.withLock { records.count } }
    var ids: [Int64] { lock.withLock { records.map(\.id) } }
}
