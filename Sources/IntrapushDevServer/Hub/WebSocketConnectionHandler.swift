// SPDX-License-Identifier: Apache-2.0

import NIOCore
import NIOWebSocket

/// One client's WebSocket: delivers its org's pushes and hands received frames to the ``Hub``.
///
/// Deliveries are written without a flush per frame and flushed once per batch; writing stops
/// while the channel is not writable and resumes on `channelWritabilityChanged`, so a burst of
/// 100,000 pushes never piles up in memory on the way out. With a hello to expect, nothing is
/// delivered before it.
final class WebSocketConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private enum State {
        case open
        /// Asked to close: nothing more is delivered; the close frame goes once what was sent is
        /// acknowledged, or the drain times out.
        case draining(code: WebSocketErrorCode, reason: String, awaitingReply: Bool)
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
    /// No text frame came yet: the first is the hello, when the clients send one.
    private var awaitsFirstFrame = true
    /// Deliveries wait for the hello.
    private var awaitsHello: Bool
    /// When the client was last heard from (any frame), for the idle timeout.
    private var lastHeard = NIODeadline.now()
    private var idleTimer: Scheduled<Void>?
    private var closed: EventLoopPromise<Void>?

    /// How long a client may take to answer our close frame before the TCP stream is closed.
    private static let closeReplyTimeout = TimeAmount.seconds(2)

    init(hub: Hub, route: ConnectRoute) {
        self.hub = hub
        self.route = route
        awaitsHello = hub.expectedHello != nil
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        closed = context.eventLoop.makePromise()
        connectionID = hub.connectionOpened(self, route: route)
        armIdleTimer(context: context)
        if awaitsHello {
            let timeout = hub.configuration.helloTimeout
            context.eventLoop.assumeIsolated().scheduleTask(in: timeout.timeAmount) {
                guard self.awaitsHello else { return }
                self.close(code: .policyViolation, reason: "no hello within \(timeout)", awaitingReply: true, drain: false)
            }
        }
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
        guard let context, let id = connectionID, case .open = state, !awaitsHello else { return }
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
            while case .open = state, context.channel.isWritable, let push = hub.nextDelivery(to: id) {
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
        } while isDeliveryRequested && isOpen
    }

    private var isOpen: Bool {
        if case .open = state { true } else { false }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        guard let id = connectionID, !hub.isSilenced else { return }
        lastHeard = .now()
        switch frame.opcode {
        case .text:
            let text = String(buffer: frame.unmaskedData)
            let isFirst = awaitsFirstFrame
            awaitsFirstFrame = false
            let answer: String?
            switch hub.textReceived(text, on: id, isFirst: isFirst) {
            case .none: answer = nil
            case .echo: answer = text
            case .acknowledgement(let acknowledgement): answer = acknowledgement
            case .helloAccepted:
                awaitsHello = false
                deliverPending()
                answer = nil
            case .helloRefused:
                close(code: .policyViolation, reason: "expected the hello", awaitingReply: true, drain: false)
                return
            }
            if let answer, isOpenOrDraining {
                let frame = WebSocketFrame(fin: true, opcode: .text, data: context.channel.allocator.buffer(string: answer))
                context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
            }
            finishDrainIfAcknowledged()
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

    /// Data frames may still go out: open, or draining before our close.
    private var isOpenOrDraining: Bool {
        switch state {
        case .open, .draining: true
        case .closing, .closed: false
        }
    }

    private func closeReceived(_ frame: WebSocketFrame, on id: Hub.ConnectionID, context: ChannelHandlerContext) {
        var data = frame.unmaskedData
        let code = data.readWebSocketErrorCode()
        // 1005 is the RFC 6455 stand-in for "no status code was present".
        hub.closeReceived(code: code.map { Int(UInt16(webSocketErrorCode: $0)) } ?? 1005, on: id)
        switch state {
        case .open, .draining:
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

    /// Closes the connection with `code`. With `drain`, it first stops sending and waits, at most
    /// the hub's drain timeout, for the acknowledgements of what it sent: the client acknowledges
    /// nothing after a server's close. Without `awaitingReply` the stream closes right after the
    /// close frame. The future completes when the connection is closed.
    @discardableResult
    func close(code: WebSocketErrorCode, reason: String = "", awaitingReply: Bool, drain: Bool) -> EventLoopFuture<Void> {
        guard let context, let closed else { return hub.eventLoop.makeSucceededVoidFuture() }
        guard case .open = state else { return closed.futureResult }
        state = .draining(code: code, reason: reason, awaitingReply: awaitingReply)
        if drain, let id = connectionID, hub.awaitsAcknowledgements(on: id) {
            let timeout = hub.configuration.closeDrainTimeout
            context.eventLoop.assumeIsolated().scheduleTask(in: timeout.timeAmount) {
                self.sendClose()
            }
        } else {
            sendClose()
        }
        return closed.futureResult
    }

    /// Draining, and nothing sent is left unacknowledged: the close frame goes now.
    private func finishDrainIfAcknowledged() {
        guard case .draining = state, let id = connectionID, !hub.awaitsAcknowledgements(on: id) else { return }
        sendClose()
    }

    private func sendClose() {
        guard let context, case .draining(let code, let reason, let awaitingReply) = state else { return }
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
        guard let context else { return }
        if case .closed = state { return }
        context.close(promise: nil)
    }

    /// Drops the connection once nothing at all came from the client for the idle timeout
    /// (while silenced the server plays dead and drops no one).
    private func armIdleTimer(context: ChannelHandlerContext) {
        guard let timeout = hub.configuration.idleTimeout else { return }
        let amount = timeout.timeAmount
        idleTimer = context.eventLoop.assumeIsolated().scheduleTask(deadline: lastHeard + amount) {
            guard let id = self.connectionID, let context = self.context else { return }
            if self.hub.isSilenced { self.lastHeard = .now() }
            if NIODeadline.now() - self.lastHeard >= amount {
                self.hub.connectionIdle(id)
                // A close frame saying why (S-HB-4), not a bare end of the stream: 1001 "idle".
                self.close(code: .goingAway, reason: "idle", awaitingReply: false, drain: false)
            } else {
                self.armIdleTimer(context: context)
            }
        }
    }

    private func writeCloseFrame(
        _ data: ByteBuffer, context: ChannelHandlerContext
    ) -> EventLoopFuture<Void>.Isolated {
        let frame = WebSocketFrame(fin: true, opcode: .connectionClose, data: data)
        return context.writeAndFlush(wrapOutboundOut(frame)).assumeIsolated()
    }

    private func connectionEnded() {
        state = .closed
        idleTimer?.cancel()
        idleTimer = nil
        closed?.succeed()
        guard let id = connectionID else { return }
        connectionID = nil
        hub.connectionClosed(id)
    }
}

extension Duration {
    var timeAmount: TimeAmount {
        .nanoseconds(components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000)
    }
}
