import TestSupport
import Foundation
@testable import IntrapushDaemonKit
import Testing

@testable import IntrapushStore

@Suite("Checkpointer")
struct CheckpointerTests {
    static func pushes(_ count: Int, from first: Int) -> [Push] {
        let body = String(repeating: "x", count: 400)
        return (first..<(first + count)).map { Push.text(#"{"id":"m\#($0)","body":"\#(body)"}"#, id: "m\($0)", at: Int64($0)) }
    }

    @Test("commits leave the checkpoint to the checkpointer, which copies the whole WAL back")
    func checkpointsOffTheCommitPath() async throws {
        let directory = try TemporaryDirectory("store")
        let store = try NotificationStore(path: directory.file())
        let checkpointer = try Checkpointer(path: store.path)
        var largestWAL = 0
        store.onCommit { pages in
            largestWAL = max(largestWAL, pages)
            checkpointer.walGrew(toPages: pages)
        }
        for batch in 0..<40 {
            _ = try store.store(Self.pushes(500, from: batch * 500), liveState: nil)
        }
        await checkpointer.shutdown()  // waits for the queued checkpoint
        #expect(largestWAL >= Checkpointer.walPagesThreshold)
        #expect(checkpointer.checkpointsCompleted >= 1)
        // Most rows reached the database file itself (a few pages before; what came after the last
        // checkpoint is still in the WAL): only a checkpoint writes there.
        let size = try FileManager.default.attributesOfItem(atPath: directory.file())[.size] as? Int ?? 0
        #expect(size > 4 << 20)
        let reader = try SQLiteConnection(path: directory.file(), mode: .readOnly)
        #expect(try reader.integer("SELECT count(*) FROM notifications") == 20_000)
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
        #expect(largestWAL > 3 * Checkpointer.walPagesThreshold)
    }
}
