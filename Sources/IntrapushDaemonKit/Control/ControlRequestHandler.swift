import IntrapushQuery
import IntrapushStore
import IntrapushSupport
import Logging
import NIOCore

/// Answers the CLI's requests on one control-socket connection: queue a message or a request,
/// mark notifications read (every answer only after the database committed), and tell the live
/// state (`status`, from memory).
final class ControlRequestHandler: ChannelInboundHandler {
    typealias InboundIn = ControlFrame
    typealias OutboundOut = ByteBuffer

    let outbox: OutboxCoordinator
    let liveState: @Sendable () -> LiveState
    let logger: Logger

    init(outbox: OutboxCoordinator, liveState: @escaping @Sendable () -> LiveState, logger: Logger) {
        self.outbox = outbox
        self.liveState = liveState
        self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        let channel = context.channel
        answer(frame).whenSuccess { answer in
            channel.writeAndFlush(answer.encoded(allocator: channel.allocator), promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        let answer = ControlAnswer(status: 64, body: "the request could not be read; is intrapush the same version as intrapushd?")
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(answer.encoded(allocator: channel.allocator))).whenComplete { _ in
            channel.close(promise: nil)
        }
    }

    private func answer(_ frame: ControlFrame) -> EventLoopFuture<ControlAnswer> {
        let eventLoop = outbox.eventLoop
        switch frame.verb {
        case "send", "request":
            let kind: OutboxKind = frame.verb == "send" ? .message : .request
            let timeout = Int64(frame.argument).map { Duration.milliseconds($0) }
            guard kind == .message || frame.argument == "-" || (timeout ?? .zero) > .zero else {
                return eventLoop.makeSucceededFuture(ControlAnswer(status: 64, body: "the request's timeout must be positive"))
            }
            return queue(String(buffer: frame.body), kind: kind, timeout: timeout)
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
            return eventLoop.makeSucceededFuture(
                ControlAnswer(status: 64, body: "unknown request \(frame.verb); is intrapush the same version as intrapushd?"))
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
            case .success(let rowID): .ok("\(rowID) \(submission.message.id)")
            case .failure(let refusal): ControlAnswer(status: refusal.exitStatus, body: refusal.message)
            }
        }.recover { [logger] error in
            logger.error("could not queue a message for the server", metadata: ["error": "\(error)"])
            return ControlAnswer(status: 74, body: "the daemon could not store the message (\(Self.describe(error))); nothing was queued")
        }
    }

    /// The body is `all`, or ids separated by spaces.
    private func markRead(_ body: String) -> EventLoopFuture<ControlAnswer> {
        let ids: [Int64]?
        if body == "all" {
            ids = nil
        } else {
            let parsed = body.split(separator: " ").map { Int64($0) }
            guard !parsed.isEmpty, parsed.allSatisfy({ $0 != nil }) else {
                return outbox.eventLoop.makeSucceededFuture(ControlAnswer(status: 64, body: "expected notification ids or all"))
            }
            ids = parsed.compactMap { $0 }
        }
        return outbox.markRead(ids: ids).map { outcome in
            let missing = outcome.missing.map(String.init).joined(separator: " ")
            return .ok("\(outcome.marked) \(outcome.alreadyRead) \(outcome.receipts)\n\(missing)")
        }.recover { [logger] error in
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
