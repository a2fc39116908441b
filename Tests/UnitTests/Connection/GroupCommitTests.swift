import Testing

@testable import IntrapushDaemonKit
@testable import IntrapushStore

@Suite("Group commit ordering")
struct GroupCommitTests {
    func push(_ id: Int) -> Push {
        Push(payload: .text("p\(id)"), messageID: "\(id)", title: nil, body: nil, receivedAt: Int64(id))
    }

    @Test("pushes arriving while a commit is in flight are committed together, in order")
    func batchesWhileInFlight() {
        var commits = GroupCommit()
        commits.received(push(1))
        #expect(commits.nextBatch()?.map(\.messageID) == ["1"])
        for id in 2...5 { commits.received(push(id)) }
        #expect(commits.nextBatch() == nil)  // one commit at a time
        #expect(commits.committed().map(\.messageID) == ["1"])
        #expect(commits.nextBatch()?.map(\.messageID) == ["2", "3", "4", "5"])
        #expect(commits.committed().map(\.messageID) == ["2", "3", "4", "5"])
        #expect(commits.isIdle)
    }

    @Test("a batch never exceeds the maximum; the rest follows in order")
    func maximumBatch() {
        var commits = GroupCommit(maximumBatchSize: 3)
        for id in 1...7 { commits.received(push(id)) }
        var acknowledged: [String?] = []
        while let batch = commits.nextBatch() {
            #expect(batch.count <= 3)
            acknowledged += commits.committed().map(\.messageID)
        }
        #expect(acknowledged == (1...7).map { "\($0)" })
    }

    @Test("a failed commit abandons everything pending: nothing is left to acknowledge")
    func abandon() {
        var commits = GroupCommit()
        commits.received(push(1))
        _ = commits.nextBatch()
        commits.received(push(2))
        commits.abandon()
        #expect(commits.isIdle)
        #expect(commits.committed().isEmpty)
    }
}
