import NIOCore
import NIOWebSocket

/// One client's WebSocket: delivers its org's pushes and hands received frames to the ``Hub``.
///
/// Deliveries are written without a flush per frame and flushed once per batch; writing stops
/// while the channel is not writable and resumes on `channelWritabilityChanged`, so a burst of
/// 100,000 pushes never piles up in memory on the way out.
final class WebSocketConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private enum State {
        case open
        /// Our close frame is sent; the client's reply ends the connection.
        case closing
        case closed
    }

    private let hub: Hub
    private let route: ConnectRoute
    private var connectionID: Hub.ConnectionID?
    private var context: ChannelHandlerContext?
    private var state = State.open
    private var isDelivering = false
    private var isDeliveryRequested = false

    /// How long a client may take to answer our close frame before the TCP stream is closed.
    private static let closeReplyTimeout = TimeAmount.seconds(2)

    init(hub: Hub, route: ConnectRoute) {
        self.hub = hub
        self.route = route
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        connectionID = hub.connectionOpened(self, route: route)
        deliverPending()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        connectionEnded()
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        connectionEnded()
        context.fireChannelInactive()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            deliverPending()
        }
        context.fireChannelWritabilityChanged()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        hub.logger.info("connection \(connectionID.map(String.init) ?? "?") failed: \(error)")
        context.close(promise: nil)
    }

    /// Writes every deliverable push while the channel stays writable, then flushes once.
    func deliverPending() {
        guard let context, let id = connectionID, state == .open else { return }
        // A flush can fire writability changes re-entrantly; those only ask for another round.
        guard !isDelivering else {
            isDeliveryRequested = true
            return
        }
        isDelivering = true
        defer { isDelivering = false }
        repeat {
            isDeliveryRequested = false
            var hasWritten = false
            var timedSequenceNumbers: [Int] = []
            while state == .open, context.channel.isWritable, let push = hub.nextDelivery(to: id) {
                let frame = WebSocketFrame(fin: true, opcode: push.isBinary ? .binary : .text, data: push.payload)
                context.write(wrapOutboundOut(frame), promise: nil)
                hasWritten = true
                if push.isTimed {
                    timedSequenceNumbers.append(push.sequenceNumber)
                }
            }
            if hasWritten {
                if !timedSequenceNumbers.isEmpty {
                    hub.timedPushesFlushed(timedSequenceNumbers, at: .now())
                }
                context.flush()
            }
        } while isDeliveryRequested && state == .open
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        guard let id = connectionID, !hub.isSilenced else { return }
        switch frame.opcode {
        case .text:
            let text = String(buffer: frame.unmaskedData)
            let answer: String? = switch hub.textReceived(text, on: id) {
            case .none: nil
            case .echo: text
            case .acknowledgement(let acknowledgement): acknowledgement
            }
            if let answer, state == .open {
                let frame = WebSocketFrame(fin: true, opcode: .text, data: context.channel.allocator.buffer(string: answer))
                context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
            }
        case .ping:
            hub.pingReceived(on: id)
            let pong = WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)
            context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
        case .connectionClose:
            closeReceived(frame, on: id, context: context)
        default:
            break
        }
    }

    private func closeReceived(_ frame: WebSocketFrame, on id: Hub.ConnectionID, context: ChannelHandlerContext) {
        var data = frame.unmaskedData
        let code = data.readWebSocketErrorCode()
        // 1005 is the RFC 6455 stand-in for "no status code was present".
        hub.closeReceived(code: code.map { Int(UInt16(webSocketErrorCode: $0)) } ?? 1005, on: id)
        switch state {
        case .open:
            state = .closing
            var reply = context.channel.allocator.buffer(capacity: 2)
            if let code {
                reply.write(webSocketErrorCode: code)
            }
            writeCloseFrame(reply, context: context).whenComplete { _ in context.close(promise: nil) }
        case .closing:
            context.close(promise: nil)
        case .closed:
            break
        }
    }

    /// Starts the closing handshake with `code`; without `awaitingReply` the stream closes right after.
    func close(code: WebSocketErrorCode, reason: String = "", awaitingReply: Bool) {
        guard let context, state == .open else { return }
        state = .closing
        var data = context.channel.allocator.buffer(capacity: 2 + reason.utf8.count)
        data.write(webSocketErrorCode: code)
        data.writeString(String(reason.utf8.prefix(123)) ?? "")
        let written = writeCloseFrame(data, context: context)
        guard awaitingReply else {
            written.whenComplete { _ in context.close(promise: nil) }
            return
        }
        let channel = context.channel
        channel.eventLoop.scheduleTask(in: Self.closeReplyTimeout) {
            channel.close(promise: nil)
        }
    }

    /// Closes the TCP stream without a close frame, as a crashed server would.
    func drop() {
        guard let context, state != .closed else { return }
        context.close(promise: nil)
    }

    private func writeCloseFrame(
        _ data: ByteBuffer, context: ChannelHandlerContext
    ) -> EventLoopFuture<Void>.Isolated {
        let frame = WebSocketFrame(fin: true, opcode: .connectionClose, data: data)
        return context.writeAndFlush(wrapOutboundOut(frame)).assumeIsolated()
    }

    private func connectionEnded() {
        state = .closed
        guard let id = connectionID else { return }
        connectionID = nil
        hub.connectionClosed(id)
    }
}
