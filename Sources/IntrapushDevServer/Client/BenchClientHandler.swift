// SPDX-License-Identifier: Apache-2.0

import NIOCore
import NIOWebSocket

/// Acknowledges every push the moment it is read and keeps nothing, so that a benchmark can show
/// how fast the server alone delivers.
///
/// Acknowledgements are written as pushes are read and flushed once per read batch, as a fast
/// client would; pings are answered, and a close frame is echoed before the stream is closed.
final class BenchClientHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let acknowledgement: ByteBuffer
    /// Told of every push as it is read (on the channel's loop), for counting what arrived.
    private let onPush: (@Sendable (ByteBuffer) -> Void)?
    // Masking keys need not be secret against our own server; the system generator would cost a
    // syscall per frame.
    private var maskingKeys = SplitMix64(seed: 0x1E55_DA7A)
    private var hasUnflushedWrites = false
    private var isClosing = false

    init(acknowledgementText: String, onPush: (@Sendable (ByteBuffer) -> Void)? = nil) {
        acknowledgement = ByteBuffer(string: acknowledgementText)
        self.onPush = onPush
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text where frame.fin, .binary where frame.fin:
            onPush?(frame.unmaskedData)
            write(.text, acknowledgement, context: context)
        case .ping:
            write(.pong, frame.unmaskedData, context: context)
        case .connectionClose where !isClosing:
            isClosing = true
            var code = frame.unmaskedData
            var reply = context.channel.allocator.buffer(capacity: 2)
            reply.write(webSocketErrorCode: code.readWebSocketErrorCode() ?? .normalClosure)
            let frame = WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: nextMaskingKey(), data: reply)
            context.writeAndFlush(wrapOutboundOut(frame)).assumeIsolated().whenComplete { _ in
                context.close(promise: nil)
            }
        default:
            break
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if hasUnflushedWrites {
            hasUnflushedWrites = false
            context.flush()
        }
        context.fireChannelReadComplete()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is CloseRequested else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        close(context: context)
    }

    /// Asks the handler, through the pipeline, to start the closing handshake.
    struct CloseRequested: Sendable {}

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    /// Starts the closing handshake with 1000; the server's echo ends the connection.
    private func close(context: ChannelHandlerContext) {
        guard !isClosing else { return }
        isClosing = true
        var data = context.channel.allocator.buffer(capacity: 2)
        data.write(webSocketErrorCode: .normalClosure)
        let frame = WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: nextMaskingKey(), data: data)
        context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
    }

    private func write(_ opcode: WebSocketOpcode, _ data: ByteBuffer, context: ChannelHandlerContext) {
        guard !isClosing else { return }
        let frame = WebSocketFrame(fin: true, opcode: opcode, maskKey: nextMaskingKey(), data: data)
        context.write(wrapOutboundOut(frame), promise: nil)
        hasUnflushedWrites = true
    }

    private func nextMaskingKey() -> WebSocketMaskingKey {
        .random(using: &maskingKeys)
    }
}

/// A tiny, fast pseudo-random generator (SplitMix64), for WebSocket masking keys.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}
