// SPDX-License-Identifier: Apache-2.0

import TestSupport
import Foundation
import NIOConcurrencyHelpers
import NIOPosix
@testable import IntrapushDaemonKit
import Testing

@testable import IntrapushStore

/// The checkpointer with a real database file, its own thread, and the writer on a real loop.
@Suite("Checkpointer")
struct CheckpointerTests {
    static func pushes(_ count: Int, from first: Int) -> [Push] {
        let body = String(repeating: "x", count: 400)
        return (first..<(first + count)).map { Push.text(#"{"id":"m\#($0)","body":"\#(body)"}"#, id: "m\($0)", at: Int64($0)) }
    }

    /// Commits `batches` on the writer's loop, one after the other, with the checkpointer told of
    /// each; returns the WAL's length after each commit and the copies made.
    static func commit(_ batches: [[Push]]) async throws -> (walLengths: [Int], copies: Int, rows: Int, fileSize: Int) {
        let loops = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let directory = try TemporaryDirectory("store")
        let store = try NotificationStore(path: directory.file())
        let writer = StoreExecutor(eventLoop: loops.next())
        let checkpointer = try Checkpointer(store: store, writer: writer)
        let walLengths = NIOLockedValueBox<[Int]>([])
        store.onCommit { pages in
            walLengths.withLockedValue { $0.append(pages) }
            checkpointer.committed(walPages: pages)
        }
        for batch in batches {
            _ = try await writer.runIfActive { try store.store(batch, liveState: nil) }
        }
        await writer.stop()
        await checkpointer.shutdown()
        try await loops.shutdownGracefully()
        let size = try FileManager.default.attributesOfItem(atPath: directory.file())[.size] as? Int ?? 0
        let reader = try SQLiteConnection(path: directory.file(), mode: .readOnly)
        return (walLengths.withLockedValue { $0 }, checkpointer.checkpointsCompleted,
                Int(try reader.integer("SELECT count(*) FROM notifications")), size)
    }

    @Test("a steady stream of single pushes: a copy per threshold's worth of frames, and the WAL starts over")
    func steadyStream() async throws {
        let commits = 800
        let result = try await Self.commit((0..<commits).map { Self.pushes(1, from: $0) })
        let startedOver = zip(result.walLengths, result.walLengths.dropFirst()).filter { $1 < $0 }.count
        #expect(startedOver >= 2, "the WAL started over \(startedOver) times")
        #expect(result.walLengths.max() ?? 0 < 2 * CheckpointSchedule.defaultThreshold)
        // Two copies per start-over (the bulk beside, the rest on the writer), not one per commit.
        #expect(result.copies <= 2 * (startedOver + 1), "\(result.copies) copies for \(commits) commits")
        #expect(result.rows == commits)
    }

    @Test("a burst of large batches: the rows reach the database file itself, which only a copy writes")
    func burst() async throws {
        let result = try await Self.commit((0..<40).map { Self.pushes(500, from: $0 * 500) })
        #expect(result.walLengths.max() ?? 0 >= CheckpointSchedule.defaultThreshold)
        #expect(result.copies >= 1)
        #expect(result.fileSize > 4 << 20)
        #expect(result.rows == 20_000)
    }

    @Test("with the hook installed SQLite no longer checkpoints inside commits")
    func noAutomaticCheckpoint() throws {
        let directory = try TemporaryDirectory("store")
        let store = try NotificationStore(path: directory.file())
        var largestWAL = 0
        store.onCommit { largestWAL = max(largestWAL, $0) }
        for batch in 0..<40 {
            _ = try store.store(Self.pushes(500, from: batch * 500), liveState: nil)
        }
        // The automatic checkpoint would have reset the WAL near 1,000 pages.
        #expect(largestWAL > 3 * CheckpointSchedule.defaultThreshold)
    }
}
