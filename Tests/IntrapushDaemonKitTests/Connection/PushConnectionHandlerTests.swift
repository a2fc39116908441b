// SPDX-License-Identifier: Apache-2.0

import IntrapushConfiguration
import IntrapushStore
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import NIOWebSocket
import Testing

@testable import IntrapushDaemonKit

/// The handler on an `EmbeddedChannel` with a committer whose commits finish when the test says.
@Suite("The push session handler with a controlled store")
struct PushConnectionHandlerTests {
    final class ControlledCommitter: PushCommitter, @unchecked Sendable {
        // Touched only on the embedded event loop, which is the test's thread.
        var batches: [[String?]] = []
        var promises: [EventLoopPromise<CommittedBatch>] = []
        var acknowledgedCount = 0

        func commit(_ pushes: [Push], on eventLoop: any EventLoop) -> EventLoopFuture<CommittedBatch> {
            batches.append(pushes.map(\.messageID))
            let promise = eventLoop.makePromise(of: CommittedBatch.self)
            promises.append(promise)
            return promise.futureResult
        }

        func acknowledged(_ count: Int) {
            acknowledgedCount += count
        }
    }

    /// Counts the `read()` calls that reach the head of the pipeline: reading resumed.
    final class ReadCounter: ChannelOutboundHandler {
        typealias OutboundIn = Any
        var reads = 0
        func read(context: ChannelHandlerContext) {
            reads += 1
            context.read()
        }
    }

    let channel = EmbeddedChannel()
    let committer = ControlledCommitter()
    let reads = ReadCounter()
    let closes = NIOLockedValueBox<[DisconnectReason]>([])
    let handler: PushConnectionHandler

    init(machine: PushConnectionStateMachine = .init()) throws {
        let closes = self.closes
        handler = PushConnectionHandler(
            settings: Configuration(host: "push.corp", org: "acme", token: Secret("t"), ackText: "ack {id}").connection,
            committer: committer,
            events: ConnectionEventSink { event in
                if case .closed(let reason) = event { closes.withLockedValue { $0.append(reason) } }
            },
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
            machine: machine)
        try channel.pipeline.syncOperations.addHandlers(reads, WebSocketFrameEncoder(), handler)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9)).wait()
    }

    func receive(_ ids: String...) throws {
        for id in ids {
            try channel.writeInbound(WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: #"{"id":"\#(id)"}"#)))
        }
    }

    /// Text of the frames written so far, close frames as `close <code>`.
    func written() throws -> [String] {
        var texts: [String] = []
        for frame in try channel.writtenFrames() {
            var data = frame.unmaskedData
            if frame.opcode == .connectionClose {
                texts.append("close \(data.readInteger(as: UInt16.self).map(String.init) ?? "")")
            } else {
                texts.append(data.readString(length: data.readableBytes) ?? "")
            }
        }
        return texts
    }

    func finishCommit(_ index: Int) {
        committer.promises[index].succeed(CommittedBatch(outcomes: committer.batches[index].map { _ in .inserted(rowID: 1) }))
        channel.embeddedEventLoop.run()
    }

    @Test("no acknowledgement leaves before its commit; they leave in arrival order")
    func acknowledgeAfterCommit() throws {
        try receive("a", "b", "c")
        #expect(committer.batches == [["a"]])
        #expect(try written() == [])
        #expect(committer.acknowledgedCount == 0)
        finishCommit(0)
        #expect(try written() == ["ack a"])
        #expect(committer.batches == [["a"], ["b", "c"]])
        finishCommit(1)
        #expect(try written() == ["ack b", "ack c"])
        #expect(committer.acknowledgedCount == 3, "the live state counts what was acknowledged")
    }

    @Test("a failed commit acknowledges nothing, closes with 1011 and reports the store failure")
    func failedCommit() throws {
        try receive("a", "b")
        committer.promises[0].fail(ChannelError.ioOnClosedChannel)
        channel.embeddedEventLoop.run()
        #expect(try written() == ["close 1011"])
        #expect(!channel.isActive)
        #expect(closes.withLockedValue { $0 }.count == 1)
        if case .storeFailed = closes.withLockedValue({ $0 }).first {} else { Issue.record("not a store failure") }
        #expect(committer.batches == [["a"]])  // b was never committed, so never acknowledged
    }

    @Test("reading pauses while too many pushes wait and resumes once the store caught up")
    func backpressure() throws {
        let test = try PushConnectionHandlerTests(machine: .init(pauseReadingAbove: 2, resumeReadingBelow: 1))
        try test.receive("a", "b", "c", "d")  // a in flight, three wait
        #expect(test.handler.machine.state == .open(isReadingPaused: true))
        let readsBefore = test.reads.reads
        test.finishCommit(0)
        #expect(test.handler.machine.state == .open(isReadingPaused: false))
        #expect(test.reads.reads > readsBefore)
        #expect(try test.written() == ["ack a"])
    }

    @Test("a close request drains what was taken, acknowledges it, then sends close 1000")
    func closeDrains() throws {
        try receive("a", "b")
        channel.pipeline.fireUserInboundEventTriggered(CloseRequested(reason: .shuttingDown))
        try receive("c")  // after the request: left to the server's redelivery
        #expect(try written() == [])
        finishCommit(0)
        finishCommit(1)
        #expect(try written() == ["ack a", "ack b", "close 1000"])
        #expect(committer.batches == [["a"], ["b"]])
        try channel.writeInbound(WebSocketFrame(fin: true, opcode: .connectionClose, data: ByteBuffer(integer: UInt16(1000))))
        #expect(!channel.isActive)
        #expect(closes.withLockedValue { $0 } == [.shuttingDown])
    }
}
