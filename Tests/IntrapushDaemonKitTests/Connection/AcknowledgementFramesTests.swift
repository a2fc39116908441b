// SPDX-License-Identifier: Apache-2.0

import IntrapushConfiguration
import IntrapushStore
import Logging
import NIOCore
import NIOEmbedded
import NIOWebSocket
import Testing

@testable import IntrapushDaemonKit

/// With the pipeline's frame encoder in place, as on a real connection, a batch's
/// acknowledgements leave framed and masked by the handler itself, in one buffer: read back by
/// NIO's own server-side frame decoder, they are what the frame encoder would have sent.
@Suite("Acknowledgements framed in one buffer")
struct AcknowledgementFramesTests {
    let channel = EmbeddedChannel()
    let committer = PushConnectionHandlerTests.ControlledCommitter()

    init() throws {
        let handler = PushConnectionHandler(
            settings: Configuration(host: "push.corp", org: "acme", token: Secret("t"), ackText: "ack {id}").connection,
            committer: committer, events: ConnectionEventSink { _ in },
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        try channel.pipeline.syncOperations.addHandlers(WebSocketFrameEncoder(), handler)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9)).wait()
    }

    func receive(_ ids: [String]) throws {
        for id in ids {
            try channel.writeInbound(WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: #"{"id":"\#(id)"}"#)))
        }
    }

    func finishCommit(_ index: Int) {
        committer.promises[index].succeed(CommittedBatch(outcomes: committer.batches[index].map { _ in .inserted(rowID: 1) }))
        channel.embeddedEventLoop.run()
    }

    /// The buffers written so far, and the frames a server reads from them.
    func written() throws -> (buffers: Int, frames: [WebSocketFrame]) {
        let server = EmbeddedChannel(handler: ByteToMessageHandler(WebSocketFrameDecoder()))
        var buffers = 0
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) {
            buffers += 1
            try server.writeInbound(buffer)
        }
        var frames: [WebSocketFrame] = []
        while let frame = try server.readInbound(as: WebSocketFrame.self) { frames.append(frame) }
        return (buffers, frames)
    }

    @Test("one buffer per batch; each frame a final text frame, masked with a key of its own, in arrival order")
    func oneBufferPerBatch() throws {
        let ids = (0..<60).map { "m\($0)" }
        try receive(ids)
        finishCommit(0)  // the first push alone
        finishCommit(1)  // the 59 that came while it committed
        let (buffers, frames) = try written()
        #expect(buffers == 2)
        #expect(frames.map { String(buffer: $0.unmaskedData) } == ids.map { "ack \($0)" })
        #expect(frames.allSatisfy { $0.fin && $0.opcode == .text })
        let keys = frames.compactMap { $0.maskKey.map { Array($0) } }
        #expect(keys.count == 60, "every frame is masked")
        #expect(Set(keys).count == 60, "every frame has a key of its own")
        #expect(frames.allSatisfy { String(buffer: $0.data) != String(buffer: $0.unmaskedData) }, "the payload is sent masked")
    }

    @Test("a long acknowledgement takes the 16-bit length")
    func longAcknowledgement() throws {
        let id = String(repeating: "x", count: 300)
        try receive([id])
        finishCommit(0)
        let (_, frames) = try written()
        #expect(frames.map { String(buffer: $0.unmaskedData) } == ["ack \(id)"])
    }
}
