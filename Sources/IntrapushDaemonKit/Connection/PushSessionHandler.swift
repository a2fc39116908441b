import IntrapushConfiguration
import Logging
import NIOCore
import NIOWebSocket

/// Runs one upgraded WebSocket: heartbeats and pings, the dead-peer rule, and the push path
/// (decode → group commit → acknowledge in arrival order).
///
/// Confined to the channel's event loop. No acknowledgement is written before the store
/// reported its batch committed; when a commit fails, nothing of it is acknowledged and the
/// connection is dropped so the server delivers the pushes again.
final class PushSessionHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    /// Above this many uncommitted pushes we stop reading from the socket until the store catches up.
    static let pauseReadingAbove = 16_384
    static let resumeReadingBelow = 4_096
    /// How long we wait for the server to answer our close frame (contract: at most 2 s).
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

    var context: ChannelHandlerContext?
    var liveness: ConnectionLiveness?
    var livenessTimer: Scheduled<Void>?
    var commits = GroupCommit()
    /// Why the connection ended, once known; reported when the channel goes inactive.
    var closeReason: DisconnectReason?
    var isReadingPaused = false
    /// Shutdown asked us to close: stop taking pushes, drain, then send close 1000.
    var isCloseRequested = false
    /// We sent a close frame: no data frame may follow it (RFC 6455 §5.5.1).
    var isCloseSent = false
    var closeTimer: Scheduled<Void>?
    var maskingKeys = MaskingKeySource()
    /// Read on every liveness timer wake: a suspend makes the connection suspect.
    var suspendDetector = SuspendDetector()
    private var hasReportedClosed = false

    init(
        settings: ConnectionSettings, committer: any PushCommitter, events: ConnectionEventSink,
        hook: HookRunner? = nil, logger: Logger
    ) {
        self.settings = settings
        self.committer = committer
        self.events = events
        self.hook = hook
        self.logger = logger
        self.decoder = PushDecoder(idField: settings.idField)
        self.heartbeatBytes = Array(settings.heartbeatText.utf8)
        self.fixedAcknowledgement = settings.isAcknowledgementFixed ? ByteBuffer(string: settings.ackText) : nil
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
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
        self.context = nil
        // A dial abandoned during the upgrade can add this handler to a channel that is already
        // inactive: channelInactive never comes, and without this the session would wait forever.
        reportClosed(closeReason ?? .closedByServer(code: nil))
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
            receivedPush(payload, context: context)
        case .ping:
            write(.pong, data: frame.unmaskedData, context: context)
            context.flush()
        case .connectionClose:
            receivedClose(frame, context: context)
        default:
            break  // pongs only prove liveness
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelTimers()
        reportClosed(closeReason ?? .closedByServer(code: nil))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        logger.debug("connection error: \(error)")
        switch error {
        case let error as NIOWebSocketError:
            // Protocol errors are answered here rather than by WebSocketProtocolErrorHandler, which
            // closes the channel before the error reaches us and would hide the reason.
            closeReason = closeReason ?? (error == .invalidFrameLength ? .messageTooLarge : .error("protocol error: \(error)"))
            sendClose(code: error == .invalidFrameLength ? .messageTooLarge : .protocolError, context: context)
        case NIOWebSocketFrameAggregator.Error.accumulatedFrameSizeIsTooLarge:
            closeReason = closeReason ?? .messageTooLarge
            sendClose(code: .messageTooLarge, context: context)
        default:
            closeReason = closeReason ?? .error(String(describing: error))
        }
        context.close(promise: nil)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case is UpgradeCompleted:
            if let hello = settings.helloText {
                write(.text, data: context.channel.allocator.buffer(string: hello), context: context)
                context.flush()
            }
        case let request as CloseRequested:
            closeRequested(request, context: context)
        case let replaced as HookReplaced:
            hook = replaced.runner
        case let request as VerifyRequested:
            verifyRequested(request, context: context)
        default:
            context.fireUserInboundEventTriggered(event)
        }
    }

    func reportClosed(_ reason: DisconnectReason) {
        guard !hasReportedClosed else { return }
        hasReportedClosed = true
        events.send(.closed(reason))
    }

    func cancelTimers() {
        livenessTimer?.cancel()
        livenessTimer = nil
        closeTimer?.cancel()
        closeTimer = nil
    }
}

@available(*, unavailable)
extension PushSessionHandler: Sendable {}
