// SPDX-License-Identifier: Apache-2.0

import IntrapushDevServer
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

/// A minimal WebSocket client for the tests, built on `NIOTypedWebSocketClientUpgrader`.
///
/// Frames are read in order; ``sync()`` sends a ping and collects what arrives before its pong,
/// which proves the server has handled everything sent before it.
struct TestWebSocket {
    private enum Upgrade {
        case upgraded(NIOAsyncChannel<WebSocketFrame, WebSocketFrame>)
        case notUpgraded
    }

    struct NotUpgraded: Error {}
    struct StreamEnded: Error {}

    private var frames: NIOAsyncChannelInboundStream<WebSocketFrame>.AsyncIterator
    private let outbound: NIOAsyncChannelOutboundWriter<WebSocketFrame>
    private var pingCount = 0

    /// Connects, runs `body` with the open WebSocket, then closes the TCP stream.
    static func withConnection<Result: Sendable>(
        to address: ServerAddress, path: String, _ body: (inout TestWebSocket) async throws -> Result
    ) async throws -> Result {
        guard case .upgraded(let channel) = try await upgrade(to: address, path: path) else {
            throw NotUpgraded()
        }
        return try await channel.executeThenClose { inbound, outbound in
            var socket = TestWebSocket(frames: inbound.makeAsyncIterator(), outbound: outbound)
            return try await body(&socket)
        }
    }

    /// Whether the server refuses to upgrade a request for `path`.
    static func isRefused(by address: ServerAddress, path: String, headers: [String: String] = [:]) async throws -> Bool {
        switch try await upgrade(to: address, path: path, headers: headers) {
        case .notUpgraded:
            return true
        case .upgraded(let channel):
            try await channel.executeThenClose { _, _ in }
            return false
        }
    }

    private static func upgrade(to address: ServerAddress, path: String, headers extra: [String: String] = [:]) async throws -> Upgrade {
        let result: EventLoopFuture<Upgrade> = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: address.host, port: address.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let upgrader = NIOTypedWebSocketClientUpgrader<Upgrade>(
                        maxFrameSize: 1 << 24,
                        upgradePipelineHandler: { channel, _ in
                            channel.eventLoop.makeCompletedFuture {
                                .upgraded(try NIOAsyncChannel(wrappingChannelSynchronously: channel))
                            }
                        }
                    )
                    var headers = HTTPHeaders()
                    headers.add(name: "Host", value: address.description)
                    for (name, value) in extra { headers.add(name: name, value: value) }
                    let configuration = NIOTypedHTTPClientUpgradeConfiguration(
                        upgradeRequestHead: HTTPRequestHead(version: .http1_1, method: .GET, uri: path, headers: headers),
                        upgraders: [upgrader],
                        notUpgradingCompletionHandler: { channel in
                            channel.close(promise: nil)
                            return channel.eventLoop.makeSucceededFuture(.notUpgraded)
                        }
                    )
                    var pipeline = NIOUpgradableHTTPClientPipelineConfiguration(upgradeConfiguration: configuration)
                    // The server may send frames right behind its 101; the default drops those bytes.
                    pipeline.leftOverBytesStrategy = .forwardBytes
                    return try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(
                        configuration: pipeline)
                }
            }
        return try await result.get()
    }

    /// The next frame from the server, whatever its kind.
    mutating func nextFrame() async throws -> WebSocketFrame {
        guard let frame = try await frames.next() else { throw StreamEnded() }
        return frame
    }

    /// The next data frame's content as text.
    mutating func nextText() async throws -> String {
        let frame = try await nextFrame()
        guard frame.opcode == .text || frame.opcode == .binary else {
            throw UnexpectedFrame(opcode: frame.opcode)
        }
        return String(buffer: frame.data)
    }

    struct UnexpectedFrame: Error {
        var opcode: WebSocketOpcode
    }

    /// Waits until the stream ends, returning the frames that arrived meanwhile. A reset ends it
    /// too: a server that closes while our last frame (a close reply, say) is still unread in its
    /// socket makes its kernel answer with a reset instead of a FIN.
    mutating func remainingFrames() async throws -> [WebSocketFrame] {
        var received: [WebSocketFrame] = []
        do {
            while let frame = try await frames.next() {
                received.append(frame)
            }
        } catch let error as IOError where error.errnoCode == ECONNRESET {
            return received
        }
        return received
    }

    func send(text: String) async throws {
        try await outbound.write(WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: ByteBuffer(string: text)))
    }

    func sendClose(code: WebSocketErrorCode) async throws {
        var data = ByteBuffer()
        data.write(webSocketErrorCode: code)
        try await outbound.write(WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: data))
    }

    /// Sends a ping and returns the data frames that arrived before its pong.
    @discardableResult
    mutating func sync() async throws -> [String] {
        pingCount += 1
        let token = "sync-\(pingCount)"
        try await outbound.write(WebSocketFrame(fin: true, opcode: .ping, maskKey: .random(), data: ByteBuffer(string: token)))
        var received: [String] = []
        while true {
            let frame = try await nextFrame()
            switch frame.opcode {
            case .pong where String(buffer: frame.data) == token:
                return received
            case .text, .binary:
                received.append(String(buffer: frame.data))
            default:
                throw UnexpectedFrame(opcode: frame.opcode)
            }
        }
    }
}
