// SPDX-License-Identifier: Apache-2.0

import IntrapushConfiguration
import IntrapushStore
import Logging
import NIOCore
import NIOEmbedded
import NIOWebSocket
import Testing

@testable import IntrapushDaemonKit

/// The handler with a committer that commits at once, as the daemon's store does on the loop
/// that reads: what one read brought is one commit, and its acknowledgements leave in that read.
@Suite("The push handler committing where it reads")
struct PushConnectionReadCommitTests {
    /// Commits at once and answers with a completed future, like `StoreWorker` on its own loop.
    final class ImmediateCommitter: PushCommitter, @unchecked Sendable {
        // Touched only on the embedded event loop, which is the test's thread.
        var batches: [[String?]] = []
        var acknowledgedCount = 0

        func commit(_ pushes: [Push], on eventLoop: any EventLoop) -> EventLoopFuture<CommittedBatch> {
            batches.append(pushes.map(\.messageID))
            return eventLoop.makeSucceededFuture(CommittedBatch(outcomes: pushes.map { _ in .inserted(rowID: 1) }))
        }

        func acknowledged(_ count: Int) {
            acknowledgedCount += count
        }
    }

    let channel = EmbeddedChannel()
    let committer = ImmediateCommitter()
    let reads = PushConnectionHandlerTests.ReadCounter()
    let handler: PushConnectionHandler

    init() throws {
        handler = PushConnectionHandler(
            settings: Configuration(host: "push.corp", org: "acme", token: Secret("t"), ackText: "ack {id}").connection,
            committer: committer, events: ConnectionEventSink { _ in },
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
            machine: .init(pauseReadingAbove: 2, resumeReadingBelow: 1, maximumBatchSize: 2))
        try channel.pipeline.syncOperations.addHandlers(reads, WebSocketFrameEncoder(), handler)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9)).wait()
    }

    /// Frames as one read of the socket brings them: each `channelRead`, then no `channelReadComplete`.
    func read(_ ids: String...) {
        for id in ids {
            let frame = WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: #"{"id":"\#(id)"}"#))
            channel.pipeline.fireChannelRead(NIOAny(frame))
        }
    }

    func written() throws -> [String] {
        var texts: [String] = []
        for frame in try channel.writtenFrames() {
            var data = frame.unmaskedData
            texts.append(data.readString(length: data.readableBytes) ?? "")
        }
        return texts
    }

    @Test("the frames of one read wait for its end, then go in one commit per batch, acknowledged in order before the read returns")
    func oneReadOneCommit() throws {
        read("a", "b", "c", "d", "e")
        #expect(committer.batches.isEmpty, "nothing is committed while the read goes on")
        #expect(try written().isEmpty)
        #expect(handler.machine.state == .open(isReadingPaused: true), "five wait: above the mark")
        let readsBefore = reads.reads
        channel.pipeline.fireChannelReadComplete()
        #expect(committer.batches == [["a", "b"], ["c", "d"], ["e"]])
        #expect(try written() == ["ack a", "ack b", "ack c", "ack d", "ack e"])
        #expect(committer.acknowledgedCount == 5)
        #expect(handler.machine.state == .open(isReadingPaused: false))
        #expect(reads.reads > readsBefore, "reading resumed")
        #expect(handler.machine.uncommittedCount == 0)
    }

    @Test("a close requested between reads commits what waits, acknowledges it, then closes with 1000")
    func closeAfterRead() throws {
        read("a")
        channel.pipeline.fireUserInboundEventTriggered(CloseRequested(reason: .shuttingDown))
        #expect(committer.batches == [["a"]])
        let frames = try channel.writtenFrames()
        #expect(frames.map(\.opcode) == [.text, .connectionClose])
    }
}
