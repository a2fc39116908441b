// SPDX-License-Identifier: Apache-2.0

import IntrapushConfiguration
import IntrapushStore
import IntrapushSupport
import Logging
import NIOCore
import NIOEmbedded
import NIOWebSocket
import Testing

@testable import IntrapushDaemonKit

/// `ack_text` as a JSON-shaped template, through the handler: every id a server may send comes
/// back in an acknowledgement that parses as JSON and names its push.
@Suite("JSON-shaped acknowledgements name their push, whatever its id holds")
struct AcknowledgementTemplateTests {
    func acknowledgements(ackText: String, of pushes: [String]) throws -> [String] {
        let channel = EmbeddedChannel()
        let handler = PushConnectionHandler(
            settings: Configuration(host: "push.corp", org: "acme", token: Secret("t"), ackText: ackText).connection,
            committer: PushConnectionReadCommitTests.ImmediateCommitter(), events: ConnectionEventSink { _ in },
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        try channel.pipeline.syncOperations.addHandlers(WebSocketFrameEncoder(), handler)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9)).wait()
        for push in pushes {
            channel.pipeline.fireChannelRead(NIOAny(WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: push))))
        }
        channel.pipeline.fireChannelReadComplete()
        return try channel.writtenFrames().map { frame in
            var data = frame.unmaskedData
            return data.readString(length: data.readableBytes) ?? ""
        }
    }

    /// Ids holding quotes, backslashes, every control character, non-ASCII text and an emoji.
    static let ids: [String] = ["a\"b", #"back\slash"#, "tab\there", "line\nbreak", "café", "中文", "😀", #"\""#]
        + (0x00...0x1F).map { "c" + String(UnicodeScalar(UInt8($0))) }

    @Test("{id} in a string literal: each acknowledgement is JSON whose id is the push's, in arrival order")
    func inString() throws {
        let pushes = Self.ids.map { #"{"id":\#(JSONText.quoted($0)),"title":"t"}"# }
        let frames = try acknowledgements(ackText: #"{"type":"ack","id":"{id}"}"#, of: pushes)
        #expect(frames.count == Self.ids.count)
        for (frame, id) in zip(frames, Self.ids) {
            let parsed = JSONValue.parse(frame)
            #expect(parsed?["id"] == .string(id), "\(frame.debugDescription) names \(id.debugDescription)")
            #expect(parsed?["type"] == .string("ack"))
        }
    }

    @Test("{id} as a JSON value: a number id as its digits, a string id as a string, no id as null")
    func asValue() throws {
        let frames = try acknowledgements(
            ackText: #"{"ack":{id}}"#,
            of: [#"{"id":12345678901234567890}"#, #"{"id":"12"}"#, #"{"id":"q\"1"}"#, "not json", #"{"title":"no id"}"#])
        #expect(frames == [#"{"ack":12345678901234567890}"#, #"{"ack":"12"}"#, #"{"ack":"q\"1"}"#, #"{"ack":null}"#, #"{"ack":null}"#])
        for frame in frames { #expect(JSONValue.parse(frame) != nil, "\(frame)") }
    }

    @Test("the canonical acknowledgement is exactly received message, one per push")
    func canonical() throws {
        let frames = try acknowledgements(ackText: Configuration.Defaults.ackText, of: [#"{"id":"a"}"#, "plain", #"{"id":"a"}"#])
        #expect(frames == ["received message", "received message", "received message"])
    }
}
