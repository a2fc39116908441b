// SPDX-License-Identifier: Apache-2.0

import Foundation
import Synchronization
import Testing

@testable import IntrapushStore

@Suite("Retention: a writer meanwhile")
struct RetentionConcurrencyTests {
    typealias Fixture = RetentionFixture

    /// Another connection inserts, each row in its own transaction, as each of 59 batches begins,
    /// so that its insert meets the batch's write lock; its busy timeout (500 ms) is far below
    /// the whole pass: every insert gets through, waiting for one batch at most.
    @Test("a concurrent writer with a short busy timeout is never locked out")
    func writerNeverBlocked() throws {
        let fixture = try Fixture()
        try fixture.insert(60_000, ageDays: 1, payloadBytes: 200)
        let path = fixture.path
        let pruningDone = Atomic(false)
        let batchStarting = DispatchSemaphore(value: 0)
        let writerInserted = DispatchSemaphore(value: 0)
        let outcome = Mutex<(inserted: Int, failure: String?, slowest: Duration)>((0, nil, .zero))
        let writer = Thread {
            defer { writerInserted.signal() }
            do {
                let connection = try SQLiteConnection(path: path, busyTimeout: .milliseconds(500))
                let insert = try connection.prepare(
                    "INSERT INTO notifications (received_at, payload) VALUES (\(Fixture.now), 'meanwhile')")
                let clock = ContinuousClock()
                while true {
                    batchStarting.wait()
                    if pruningDone.load(ordering: .acquiring) { return }
                    let elapsed = try clock.measure {
                        try connection.transaction { try insert.step(); insert.reset() }
                    }
                    outcome.withLock { $0.inserted += 1; $0.slowest = max($0.slowest, elapsed) }
                    writerInserted.signal()
                }
            } catch {
                outcome.withLock { $0.failure = "\(error)" }
            }
        }
        writer.start()
        let policy = RetentionPolicy(days: 0, maximumRows: 1000)
        let clock = ContinuousClock()
        var batches: [PruneProgress] = []
        var longestBatch = Duration.zero
        repeat {
            batchStarting.signal()
            var batch = PruneProgress()
            longestBatch = max(longestBatch, try clock.measure {
                batch = try fixture.store.pruneBatch(policy: policy, now: Fixture.now, batchSize: 1000)
            })
            batches.append(batch)
            writerInserted.wait()
        } while !batches.last!.isComplete && outcome.withLock({ $0.failure == nil })
        pruningDone.store(true, ordering: .releasing)
        batchStarting.signal()
        _ = writerInserted.wait(timeout: .now() + .seconds(10))  // bounded: a failed writer is gone
        let result = outcome.withLock { $0 }
        #expect(result.failure == nil)
        #expect(result.inserted == batches.count)
        #expect(result.slowest < .milliseconds(500), "slowest insert \(result.slowest), longest batch \(longestBatch)")
        // The pass fixed its target when it counted, before or after the first concurrent insert;
        // what the writer added after that stays.
        let deleted = batches.reduce(0) { $0 + $1.deleted }
        #expect(deleted == 59_000 || deleted == 59_001)
        #expect(batches.allSatisfy { $0.deleted <= 1000 })
        #expect(try fixture.count() == Int64(60_000 + result.inserted - deleted))
        print("retention: longest batch \(longestBatch), slowest concurrent insert \(result.slowest)")
    }
}
