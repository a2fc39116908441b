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

/// The push path behind the production frame aggregator, fed frames a broken or hostile server
/// sends: each flood ends the connection with a close code and a reason, and keeps nothing.
@Suite("Hostile frames: fragment floods end the message")
struct HostileFrameTests {
    final class NeverCommitter: PushCommitter, @unchecked Sendable {
        var batches = 0
        func commit(_ pushes: [Push], on eventLoop: any EventLoop) -> EventLoopFuture<CommittedBatch> {
            batches += 1
            return eventLoop.makePromise(of: CommittedBatch.self).futureResult
        }

        func acknowledged(_ count: Int) {}
    }

    let channel = EmbeddedChannel()
    let committer = NeverCommitter()
    let closes = NIOLockedValueBox<[DisconnectReason]>([])

    init() throws {
        let closes = self.closes
        let settings = Configuration(host: "push.corp", org: "acme", token: Secret("t")).connection
        let handler = PushConnectionHandler(
            settings: settings, committer: committer,
            events: ConnectionEventSink { event in
                if case .closed(let reason) = event { closes.withLockedValue { $0.append(reason) } }
            },
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        try channel.pipeline.syncOperations.addHandlers(
            WebSocketFrameEncoder(), WebSocketDialer.makeFrameAggregator(maxMessageSize: settings.maxMessageSize), handler)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9)).wait()
    }

    func closeCodes() throws -> [UInt16] {
        var codes: [UInt16] = []
        for frame in try channel.writtenFrames() {
            guard frame.opcode == .connectionClose else { continue }
            var data = frame.unmaskedData
            codes.append(data.readInteger(as: UInt16.self) ?? 0)
        }
        return codes
    }

    func fed(_ frames: [WebSocketFrame]) {
        for frame in frames {
            guard channel.isActive else { return }
            do { try channel.writeInbound(frame) } catch { return }  // the aggregator's error, once
        }
    }

    @Test("empty continuation frames after a non-final one: closed with 1009 at the first, nothing stored")
    func emptyFragments() throws {
        let start = WebSocketFrame(fin: false, opcode: .text, data: ByteBuffer(string: "{"))
        let empty = WebSocketFrame(fin: false, opcode: .continuation, data: ByteBuffer())
        fed([start] + Array(repeating: empty, count: 100_000))
        #expect(try closeCodes() == [1009])
        #expect(committer.batches == 0)
        let reason = closes.withLockedValue { $0 }.first.map(String.init(describing:)) ?? ""
        #expect(reason.contains("fragments"), "\(reason)")
    }

    @Test("one-byte fragments past the count: closed with 1009, nothing stored")
    func tooManyFragments() throws {
        let start = WebSocketFrame(fin: false, opcode: .text, data: ByteBuffer(string: "{"))
        let tiny = WebSocketFrame(fin: false, opcode: .continuation, data: ByteBuffer(string: " "))
        fed([start] + Array(repeating: tiny, count: 100_000))
        #expect(try closeCodes() == [1009])
        #expect(committer.batches == 0)
    }

    @Test("a message in a reasonable number of fragments is still one push")
    func fragmentsWithinBounds() throws {
        let start = WebSocketFrame(fin: false, opcode: .text, data: ByteBuffer(string: #"{"id":"f1","#))
        let middle = (0..<100).map { _ in WebSocketFrame(fin: false, opcode: .continuation, data: ByteBuffer(string: "  ")) }
        let end = WebSocketFrame(fin: true, opcode: .continuation, data: ByteBuffer(string: #""body":"x"}"#))
        fed([start] + middle + [end])
        #expect(committer.batches == 1)
        #expect(try closeCodes() == [])
    }

    @Test("a text message that is not UTF-8 closes with 1007 and is neither stored nor acknowledged; as binary it is a push")
    func invalidUTF8Text() throws {
        let bytes: [UInt8] = Array(#"{"id":"u1","body":""#.utf8) + [0xFF, 0xC3] + Array(#""}"#.utf8)
        fed([WebSocketFrame(fin: true, opcode: .binary, data: ByteBuffer(bytes: bytes))])
        channel.embeddedEventLoop.run()
        #expect(committer.batches == 1, "a binary message of any bytes is a push")
        #expect(try closeCodes() == [])
        fed([WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(bytes: bytes))])
        channel.embeddedEventLoop.run()
        #expect(try closeCodes() == [1007])
        #expect(committer.batches == 1, "the text message was not taken")
        #expect(!channel.isActive)
        let reason = closes.withLockedValue { $0 }.first.map(String.init(describing:)) ?? ""
        #expect(reason.contains("not UTF-8"), "\(reason)")
    }
}
