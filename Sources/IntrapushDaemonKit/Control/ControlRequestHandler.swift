import IntrapushInterface
import IntrapushStore
import IntrapushSupport
import Logging
import NIOCore

/// Answers the CLI's one request on a control-socket connection: queue a message or a request,
/// mark notifications read (every answer only after the database committed), and tell the live
/// state (`status`, from memory). Then the connection closes.
///
/// A client has `requestDeadline` to send its request and again to take its answer; while the
/// daemon works on it no clock runs, so a slow commit is never cut short into a false failure.
final class ControlRequestHandler: ChannelInboundHandler {
    typealias InboundIn = ControlFrame
    typealias OutboundOut = ByteBuffer

    let outbox: OutboxCoordinator
    let liveState: @Sendable () -> LiveState
    let admission: ControlAdmission
    let logger: Logger
    private var isAdmitted = false
    private var deadline: Scheduled<Void>?

    init(outbox: OutboxCoordinator, liveState: @escaping @Sendable () -> LiveState, admission: ControlAdmission, logger: Logger) {
        self.outbox = outbox
        self.liveState = liveState
        self.admission = admission
        self.logger = logger
    }

    func channelActive(context: ChannelHandlerContext) {
        isAdmitted = admission.connectionOpened()
        guard isAdmitted else {
            let answer = ControlAnswer(
                status: 75, body: "intrapushd has \(admission.limits.maximumConnections) control connections open already; nothing was done, try again")
            finish(with: answer, context: context)
            return
        }
        armDeadline(context: context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        if isAdmitted { admission.connectionClosed() }
        isAdmitted = false
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        deadline?.cancel()
        deadline = nil
        // One request per connection: nothing more is read, so nothing more can pile up.
        context.channel.setOption(ChannelOptions.autoRead, value: false).whenFailure { _ in }
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        answer(frame).hop(to: context.eventLoop).whenSuccess { answer in
            let (handler, context) = loopBound.value
            handler.finish(with: answer, context: context)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        finish(with: (error as? ControlRefusal)?.answer ?? ControlRefusal.unreadable.answer, context: context)
    }

    /// Writes `answer` and closes once it is taken, or when the client does not take it in time.
    private func finish(with answer: ControlAnswer, context: ChannelHandlerContext) {
        guard context.channel.isActive else { return }
        armDeadline(context: context)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(answer.encoded(allocator: channel.allocator))).whenComplete { _ in
            channel.close(promise: nil)
        }
    }

    private func armDeadline(context: ChannelHandlerContext) {
        deadline?.cancel()
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: admission.limits.requestDeadline) {
            channel.close(promise: nil)
        }
    }

    private func answer(_ frame: ControlFrame) -> EventLoopFuture<ControlAnswer> {
        let eventLoop = outbox.eventLoop
        switch frame.verb {
        case "send":
            return queue(String(buffer: frame.body), kind: .message, timeout: nil)
        case "request":
            switch admission.limits.requestTimeout(frame.argument) {
            case .success(let timeout): return queue(String(buffer: frame.body), kind: .request, timeout: timeout)
            case .failure(let refusal): return eventLoop.makeSucceededFuture(refusal.answer)
            }
        case "mark-read":
            return markRead(String(buffer: frame.body))
        case "status":
            var state = liveState()
            state.updatedAt = WallClock.nowMilliseconds()
            return eventLoop.makeSucceededFuture(.ok(state.text))
        case "wake":
            // The CLI queued directly while no daemon answered; this one started meanwhile.
            outbox.wake()
            return eventLoop.makeSucceededFuture(.ok(""))
        default:
            return eventLoop.makeSucceededFuture(ControlRefusal.unreadable.answer)  // the decoder admits known verbs only
        }
    }

    private func queue(_ text: String, kind: OutboxKind, timeout: Duration?) -> EventLoopFuture<ControlAnswer> {
        let submission: OutboxSubmission
        do {
            submission = try outbox.settings.submission(text, kind: kind, timeout: timeout, queuedAt: WallClock.nowMilliseconds())
        } catch {
            return outbox.eventLoop.makeSucceededFuture(ControlAnswer(status: error.exitStatus, body: error.message))
        }
        return outbox.queue(submission).map { result in
            switch result {
            case .success(let rowID): .ok(ControlBodies.queued(rowID: rowID, messageID: submission.message.id))
            case .failure(let refusal): ControlAnswer(status: refusal.exitStatus, body: refusal.message)
            }
        }.recover { [logger] error in
            logger.error("could not queue a message for the server", metadata: ["error": "\(error)"])
            return ControlAnswer(status: 74, body: "the daemon could not store the message (\(Self.describe(error))); nothing was queued")
        }
    }

    /// The body is `all`, or ids separated by spaces, read on the store thread: a long list
    /// must not hold up the event loop.
    private func markRead(_ body: String) -> EventLoopFuture<ControlAnswer> {
        outbox.markRead(list: body == ControlBodies.markReadRequest(ids: nil) ? nil : body).map { outcome in
            .ok(ControlBodies.markReadAnswer(outcome))
        }.recover { [logger] error in
            if error is MarkReadList.Malformed { return ControlAnswer(status: 64, body: "expected notification ids or all") }
            logger.error("could not mark notifications read", metadata: ["error": "\(error)"])
            return ControlAnswer(status: 74, body: "the daemon could not mark them read (\(Self.describe(error))); nothing changed")
        }
    }

    private static func describe(_ error: any Error) -> String {
        if let error = error as? DatabaseError, error.isDiskFull { return "the disk is full" }
        if let refusal = error as? OutboxRefusal { return refusal.message }
        return String(describing: error)
    }
}

@available(*, unavailable)
extension ControlRequestHandler: Sendable {}
