// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import IntrapushDaemonKit
@testable import IntrapushStore

@Suite("The write coalescer: one write in flight, what arrives meanwhile written together, in order")
struct WriteCoalescerTests {
    func push(_ id: Int, bytes: Int = 2) -> Push {
        Push(payload: .text(String(repeating: "p", count: bytes)), messageID: "\(id)", title: nil, body: nil, receivedAt: Int64(id))
    }

    @Test("pushes arriving while a commit is in flight are committed together, in order")
    func batchesWhileInFlight() {
        var commits = WriteCoalescer<Push>()
        commits.received(push(1))
        let first = commits.nextBatch()
        #expect(first?.map(\.messageID) == ["1"])
        for id in 2...5 { commits.received(push(id)) }
        #expect(commits.nextBatch() == nil, "one write at a time")
        #expect(commits.unwrittenCount == 5)
        #expect(commits.written().map(\.messageID) == ["1"])
        #expect(commits.nextBatch()?.map(\.messageID) == ["2", "3", "4", "5"])
        #expect(commits.written().map(\.messageID) == ["2", "3", "4", "5"])
        #expect(commits.isIdle)
    }

    @Test("a batch never exceeds the maximum; the rest follows in order, its weight kept exact")
    func maximumBatch() {
        var commits = WriteCoalescer<Push>(maximumBatchSize: 3) { $0.payloadByteCount }
        for id in 1...7 { commits.received(push(id, bytes: id)) }
        #expect(commits.waitingWeight == 28)
        var written: [String?] = []
        while let batch = commits.nextBatch() {
            #expect(batch.count <= 3)
            #expect(commits.waitingWeight == commits.waiting.reduce(0) { $0 + $1.payloadByteCount })
            written += commits.written().map(\.messageID)
        }
        #expect(written == (1...7).map { "\($0)" })
        #expect(commits.waitingWeight == 0)
    }

    @Test("a failed write abandons everything pending: nothing is left to answer")
    func abandon() {
        var commits = WriteCoalescer<Push>()
        commits.received(push(1))
        _ = commits.nextBatch()
        commits.received(push(2))
        commits.abandon()
        #expect(commits.isIdle)
        #expect(commits.written().isEmpty)
    }

    @Test("the outbox's callers: each answered from its own batch, in the order they asked")
    func submissionsAnsweredInOrder() {
        var submissions = WriteCoalescer<String>()
        var answered: [String] = []
        submissions.received("a")
        var batch = submissions.nextBatch()
        for caller in ["b", "c", "d"] { submissions.received(caller) }
        while let current = batch {
            #expect(submissions.written() == current)
            answered += current
            batch = submissions.nextBatch()
        }
        #expect(answered == ["a", "b", "c", "d"])
        #expect(answered.count == 4, "every caller answered exactly once")
    }

    @Test("the outbox's progress: what was sent and delivered meanwhile is recorded in one write, in order")
    func progressInOneWrite() throws {
        var progress = WriteCoalescer<OutboxProgress>()
        progress.received(contentsOf: [.sent(1), .sent(2)])
        _ = progress.nextBatch()
        progress.received(contentsOf: [.delivered(1), .sent(3), .delivered(2)])
        _ = progress.written()
        let batch = progress.nextBatch()
        let next = try #require(batch)
        let (sent, delivered) = OutboxProgress.split(next)
        #expect(sent == [3] && delivered == [1, 2])
    }
}
