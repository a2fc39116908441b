// SPDX-License-Identifier: Apache-2.0

import NIOCore

/// Varlink's framing as a handler: a connection's bytes split into messages at the NUL that
/// ends each (`VarlinkFraming`), within the bytes its caller may hold unfinished
/// (`VarlinkAdmission`), and handed on one at a time, when the call handler asks for the next
/// (`read`): pipelined calls wait here or in the socket, not in the daemon. A message longer
/// than its caller may send, or over their budget, closes the connection unanswered.
/// Confined to the event loop.
final class VarlinkFrameDecoder: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let admission: VarlinkAdmission
    private let maximumMessageSize: () -> Int
    private let closedUnanswered: (PeerIdentity?, String) -> Void
    private var framing = VarlinkFraming()
    private var admitted: VarlinkAdmitted?
    /// What this connection holds of the budgets: the bytes its framing buffers.
    private var reserved = 0
    /// The call handler asked for the next message.
    private var wantsMessage = false
    private var isDelivering = false
    private var isClosing = false

    /// `maximumMessageSize` is `max_message_size` now (a reload may change it); a connection
    /// closed for its messages is said to `closedUnanswered`.
    init(admission: VarlinkAdmission, maximumMessageSize: @escaping () -> Int, closedUnanswered: @escaping (PeerIdentity?, String) -> Void) {
        self.admission = admission
        self.maximumMessageSize = maximumMessageSize
        self.closedUnanswered = closedUnanswered
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let decision = event as? VarlinkAdmitted { admitted = decision }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let admitted, !isClosing else { return }
        var bytes = unwrapInboundIn(data)
        guard admission.reserve(bytes.readableBytes, by: admitted.identity.userID, as: admitted.place, maximumMessageSize: maximumMessageSize()) else {
            return closeUnanswered(context, "the daemon is receiving other long messages of this user's, or of everyone's")
        }
        reserved += bytes.readableBytes
        framing.append(&bytes)
        deliver(context, readingWhenShort: false)
    }

    func read(context: ChannelHandlerContext) {
        wantsMessage = true
        deliver(context, readingWhenShort: true)
    }

    func channelInactive(context: ChannelHandlerContext) {
        isClosing = true
        if let admitted { admission.release(reserved, by: admitted.identity.userID) }
        reserved = 0
        context.fireChannelInactive()
    }

    /// Hands on the next whole message while one is wanted, or reads the socket for more. A
    /// loop, not recursion: the handling of a message may ask for the next at once (a call
    /// answered from memory), and a thousand pipelined calls must not grow the stack.
    private func deliver(_ context: ChannelHandlerContext, readingWhenShort: Bool) {
        guard !isDelivering else { return }
        isDelivering = true
        defer { isDelivering = false }
        var readsWhenShort = readingWhenShort
        while wantsMessage, !isClosing, let admitted {
            let longest = admission.limits.longestMessage(maximumMessageSize: maximumMessageSize(), of: admitted.place)
            let message: ByteBuffer?
            do {
                message = try framing.nextMessage(longest: longest)
            } catch {
                return closeUnanswered(context, "a message is longer than the \(longest) bytes one may have")
            }
            settleBudget(of: admitted.identity.userID)
            guard let message else {
                if readsWhenShort { context.read() }
                return
            }
            wantsMessage = false
            readsWhenShort = true
            context.fireChannelRead(wrapInboundOut(message))
        }
    }

    /// Gives back what the budget holds beyond the bytes still buffered.
    private func settleBudget(of user: UInt32) {
        let buffered = framing.bufferedBytes
        guard reserved > buffered else { return }
        admission.release(reserved - buffered, by: user)
        reserved = buffered
    }

    /// The stream can no longer be read as Varlink: closed, with no reply (there is no call).
    private func closeUnanswered(_ context: ChannelHandlerContext, _ reason: String) {
        guard !isClosing else { return }
        isClosing = true
        closedUnanswered(admitted?.identity, reason)
        context.close(promise: nil)
    }
}

@available(*, unavailable)
extension VarlinkFrameDecoder: Sendable {}
