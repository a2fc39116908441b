// SPDX-License-Identifier: Apache-2.0

import IntrapushConfiguration
import IntrapushSupport
import Logging
import NIOCore
import NIOWebSocket

/// Runs one upgraded WebSocket: a thin shell around `PushConnectionStateMachine` (the push path
/// and closing) and `ConnectionLiveness` (heartbeats, pings, the dead-peer rule).
///
/// Confined to the channel's event loop. It turns frames, commit results and pipeline events
/// into the machines' events and performs their actions; it decides nothing itself.
final class PushConnectionHandler: ChannelInboundHandler, RemovableChannelHandler {
    /// The most fragments one message may arrive in (the dialer's frame aggregator enforces it).
    static let maximumFragments = 1024
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    /// RFC 6455's close code for a text message that is not UTF-8.
    static let invalidFramePayloadData: UInt16 = 1007

    /// How long we wait for the server to answer our close frame (at most 2 s, then exit).
    static let closeHandshakeTimeout: TimeAmount = .seconds(2)

    let settings: ConnectionSettings
    let decoder: PushDecoder
    let committer: any PushCommitter
    let events: ConnectionEventSink
    let logger: Logger
    /// The `on_notification` runner, if any: what a batch stored is handed to it once the batch
    /// is acknowledged. Without one the push path does nothing more.
    var hook: HookRunner?
    private let heartbeatBytes: [UInt8]
    /// Built once when every acknowledgement is the same text: no per-push formatting.
    let fixedAcknowledgement: ByteBuffer?
    /// Messages to the server go through it; `nil` in tests that exercise the push path alone.
    let outbox: OutboxCoordinator?
    let upstreamAcknowledgement: UpstreamAcknowledgement?
    /// Records each push's latency when it is acknowledged; `nil` without metrics.
    let metrics: DaemonMetrics?

    var context: ChannelHandlerContext?
    var machine: PushConnectionStateMachine
    var liveness: ConnectionLiveness?
    var livenessTimer: Scheduled<Void>?
    var closeTimer: Scheduled<Void>?
    var maskingKeys = MaskingKeySource()
    /// The pipeline's frame encoder: a batch's acknowledgements, already framed, enter the
    /// pipeline past it.
    var frameEncoder: ChannelHandlerContext?
    /// Read on every liveness timer wake: a suspend makes the connection suspect.
    var suspendDetector = SuspendDetector()
    /// How deep `perform` is: a commit that finishes while it runs (on this loop, at once) is
    /// told to the machine only when the actions before it are done.
    var performDepth = 0
    var finishedCommit: Result<CommittedBatch, any Error>?

    init(
        settings: ConnectionSettings, committer: any PushCommitter, events: ConnectionEventSink,
        hook: HookRunner? = nil, outbox: OutboxCoordinator? = nil, metrics: DaemonMetrics? = nil, logger: Logger,
        machine: PushConnectionStateMachine = .init()
    ) {
        self.metrics = metrics
        self.settings = settings
        self.decoder = PushDecoder(
            idField: settings.idField, replyToField: settings.replyToField, priorityField: settings.priorityField,
            linkField: settings.linkField, recipientsField: settings.recipientsField)
        self.outbox = outbox
        self.upstreamAcknowledgement = outbox == nil ? nil : UpstreamAcknowledgement(template: settings.upstreamAckText)
        self.committer = committer
        self.events = events
        self.hook = hook
        self.logger = logger
        self.machine = machine
        self.heartbeatBytes = Array(settings.heartbeatText.utf8)
        self.fixedAcknowledgement = settings.isAcknowledgementFixed ? ByteBuffer(string: settings.ackText) : nil
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        do {
            frameEncoder = try context.pipeline.syncOperations.context(handlerType: WebSocketFrameEncoder.self)
        } catch {
            preconditionFailure("a push connection's pipeline has a WebSocket frame encoder before its handler")
        }
        let now = ContinuousClock.now
        liveness = ConnectionLiveness(
            heartbeatInterval: settings.heartbeatInterval,
            deadPeerTimeout: settings.deadPeerTimeout,
            openedAt: now
        )
        _ = suspendDetector.observedNow()  // the baseline the first wake compares with
        armLivenessTimer(context: context, at: liveness!.nextWakeUp)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelTimers()
        perform(machine.channelClosed(), context: context)
        self.context = nil
        frameEncoder = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        liveness?.frameReceived(at: .now)
        switch frame.opcode {
        case .text, .binary:
            let payload = frame.unmaskedData
            if frame.opcode == .text, payload.readableBytesView.elementsEqual(heartbeatBytes) {
                return  // the server's heartbeat echo: proves it alive, nothing to store
            }
            if frame.opcode == .text, let outbox, let upstreamAcknowledgement,
                let messageID = payload.withUnsafeReadableBytes(upstreamAcknowledgement.messageID(in:))
            {
                // The shape of the server's acknowledgement of a message of ours is never a push,
                // even when no message of that id is in flight (one acknowledged twice, or late).
                if !outbox.acknowledgementReceived(messageID) {
                    logger.debug("an acknowledgement of \(messageID), which is not in flight (repeated or late): not stored")
                }
                return
            }
            let receivedAt = WallClock.nowMilliseconds()
            var push = payload.withUnsafeReadableBytes { decoder.decode(frame: $0, receivedAt: receivedAt) }
            if frame.opcode == .text, case .binary = push.payload {
                // RFC 6455 §8.1: a text message that is not UTF-8 fails the connection with 1007;
                // it is neither stored nor acknowledged, and what came before it is not either.
                perform(machine.protocolErrorCaught(
                    .error("the server sent a text message that is not UTF-8 (closed with 1007); other bytes must come as a binary message"),
                    closeCode: Self.invalidFramePayloadData), context: context)
                return
            }
            if metrics != nil { push.arrivedAtUptimeNanoseconds = NIODeadline.now().uptimeNanoseconds }
            if let inReplyTo = push.inReplyTo, let request = outbox?.requestAnswered(by: inReplyTo) {
                push.answersRequest = request
            }
            perform(machine.pushReceived(push), context: context)
        case .ping:
            // A control frame: allowed even after our close (RFC 6455 §5.5.1 forbids data frames).
            write(.pong, data: frame.unmaskedData, context: context)
            context.flush()
        case .connectionClose:
            let payload = frame.unmaskedData
            let code = payload.getInteger(at: payload.readerIndex, as: UInt16.self)
            let reason = payload.readableBytes > 2
                ? payload.getString(at: payload.readerIndex + 2, length: min(123, payload.readableBytes - 2)) ?? "" : ""
            perform(machine.closeFrameReceived(code: code, retryAfter: RetryHint.parseCloseReason(code: code, reason: reason)), context: context)
        default:
            break  // pongs only prove liveness
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        perform(machine.readCompleted(), context: context)
        context.fireChannelReadComplete()
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelTimers()
        perform(machine.channelClosed(), context: context)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        logger.debug("connection error: \(error)")
        // Protocol errors are answered here rather than by WebSocketProtocolErrorHandler, which
        // closes the channel before the error reaches us and would hide the reason.
        switch error {
        case let error as NIOWebSocketError where error == .invalidFrameLength:
            perform(machine.protocolErrorCaught(.messageTooLarge, closeCode: 1009), context: context)
        case let error as NIOWebSocketError:
            perform(machine.protocolErrorCaught(.error("protocol error: \(error)"), closeCode: 1002), context: context)
        case NIOWebSocketFrameAggregator.Error.accumulatedFrameSizeIsTooLarge:
            perform(machine.protocolErrorCaught(.messageTooLarge, closeCode: 1009), context: context)
        case NIOWebSocketFrameAggregator.Error.tooManyFragments, NIOWebSocketFrameAggregator.Error.nonFinalFragmentSizeIsTooSmall:
            let detail = "the server split a message into more than \(Self.maximumFragments) fragments, or sent an empty one (closed with 1009)"
            perform(machine.protocolErrorCaught(.error(detail), closeCode: 1009), context: context)
        default:
            perform(machine.connectionFailed(.error(String(describing: error))), context: context)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case is UpgradeCompleted:
            if let hello = settings.helloText {
                write(.text, data: context.channel.allocator.buffer(string: hello), context: context)
                context.flush()
            }
            // After the hello: what waits for the server goes out now, in queue order.
            outbox?.attach(self, window: settings.outboxWindow, acknowledges: settings.upstreamAckText != nil)
        case let request as CloseRequested:
            perform(machine.closeRequested(request.reason), context: context)
        case let replaced as HookReplaced:
            hook = replaced.runner
        case let request as VerifyRequested:
            verifyRequested(request, context: context)
        default:
            context.fireUserInboundEventTriggered(event)
        }
    }

    func cancelTimers() {
        livenessTimer?.cancel()
        livenessTimer = nil
        closeTimer?.cancel()
        closeTimer = nil
    }
}

@available(*, unavailable)
extension PushConnectionHandler: Sendable {}
