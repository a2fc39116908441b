// SPDX-License-Identifier: Apache-2.0

import TestSupport
@testable import IntrapushStore

/// A real store in a temporary directory, filled with rows whose ids and times the test chooses.
final class RetentionFixture {
    static let now: Int64 = 1_800_000_000_000
    static let day: Int64 = 86_400_000

    let directory: TemporaryDirectory
    let store: NotificationStore
    private var nextMessage = 0

    init() throws {
        directory = try TemporaryDirectory("store")
        store = try NotificationStore(path: directory.file())
        try store.writeLiveState(LiveState(pid: 1, state: .connected, updatedAt: Self.now))
    }

    var path: String { directory.file() }

    /// Adds `count` rows received `ageDays` before `now` (oldest first, a millisecond apart),
    /// each with a payload of `payloadBytes`.
    func insert(_ count: Int, ageDays: Int64, payloadBytes: Int = 40) throws {
        let pushes = (0..<count).map { offset -> Push in
            nextMessage += 1
            let payload = "m\(nextMessage) " + String(repeating: "x", count: payloadBytes)
            return .text(payload, id: "m\(nextMessage)", at: Self.now - ageDays * Self.day + Int64(offset))
        }
        _ = try store.store(pushes, liveState: nil)
    }

    /// Runs batches until the pass completes; returns each batch's progress.
    func prunePass(_ policy: RetentionPolicy, batchSize: Int) throws -> [PruneProgress] {
        var batches: [PruneProgress] = []
        repeat {
            batches.append(try store.pruneBatch(policy: policy, now: Self.now, batchSize: batchSize))
            precondition(batches.count < 10_000, "the pass does not end")
        } while !batches.last!.isComplete
        return batches
    }

    func count() throws -> Int64 {
        try store.connection.integer("SELECT count(*) FROM notifications")
    }

    func ids() throws -> [Int64] {
        try store.connection.column("SELECT id FROM notifications ORDER BY id").map { Int64($0!)! }
    }

    func pageCount() throws -> Int64 {
        try store.connection.integer("PRAGMA page_count")
    }
}
