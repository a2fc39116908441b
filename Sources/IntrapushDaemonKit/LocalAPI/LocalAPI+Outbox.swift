// SPDX-License-Identifier: Apache-2.0

import IntrapushInterface
import IntrapushStore
import IntrapushSupport
import NIOCore

extension LocalAPI {
    /// `io.intrapush.Outbox`: queueing as the host, for those granted it. Every answer comes
    /// only after the commit.
    func answer(_ call: OutboxInterface.Call, on context: VarlinkCallContext) {
        switch call {
        case .send(let parameters):
            let reply = context.responder(OutboxInterface.Send.self)
            queue(parameters.message, kind: .message, timeout: nil, on: context, fail: reply.fail) { queued, messageID in
                reply.reply(.init(row: queued.row, messageID: messageID))
            }
        case .request(let parameters):
            let reply = context.responder(OutboxInterface.Request.self)
            var timeout: Duration?
            if let milliseconds = parameters.timeoutMS {
                guard (1...limits.longestRequestTimeout.milliseconds).contains(milliseconds) else {
                    return reply.fail(.invalidParameter(parameter: "timeout_ms"))
                }
                timeout = .milliseconds(milliseconds)
            }
            queue(parameters.message, kind: .request, timeout: timeout, on: context, fail: reply.fail) { queued, messageID in
                self.awaitReply(queued, messageID: messageID, reply: reply, on: context)
            }
        case .wake:
            // Rows were queued directly while no daemon answered; this one started meanwhile.
            outbox.wake()
            context.responder(OutboxInterface.Wake.self).reply(.init())
        }
    }

    private func queue(
        _ text: String, kind: OutboxKind, timeout: Duration?, on context: VarlinkCallContext, fail: @escaping (OutboxInterface.Failure) -> Void,
        queued: @escaping (OutboxCoordinator.QueuedMessage, _ messageID: String) -> Void
    ) {
        let submission: OutboxSubmission
        do {
            submission = try outbox.settings.submission(text, kind: kind, timeout: timeout, queuedAt: WallClock.nowMilliseconds())
        } catch {
            return fail(Self.refused(error))
        }
        let person = context.connection.identity?.userID ?? 0
        writeStarted(by: person)
        outbox.queue(submission).assumeIsolated().whenComplete { result in
            self.writeFinished(by: person)
            switch result {
            case .success(.success(let message)): queued(message, submission.message.id)
            case .success(.failure(let refusal)): fail(Self.refused(refusal))
            case .failure(let error): fail(.storeFailed(message: self.storeFailedMessage(error, what: "store the message")))
            }
        }
    }

    private func awaitReply(
        _ queued: OutboxCoordinator.QueuedMessage, messageID: String, reply: VarlinkResponder<OutboxInterface.Request>,
        on context: VarlinkCallContext
    ) {
        let row = queued.row
        // With more, the caller hears at once that the request is queued.
        if reply.wantsMore { reply.yield(.init(row: row, messageID: messageID, reply: nil)) }
        guard let awaited = queued.reply else {
            preconditionFailure("a request was queued without waiting for its reply")
        }
        context.onEnd { [outbox] in outbox.stopAwaiting(row: row) }
        awaited.assumeIsolated().whenSuccess { outcome in
            switch outcome {
            case .replied(let text):
                reply.reply(.init(row: row, messageID: messageID, reply: text))
            case .expired:
                reply.fail(.requestExpired(
                    messageID: messageID, message: "no reply to request \(messageID) in time; it expired and is not sent again"))
            }
        }
    }

    static func refused(_ refusal: OutboxRefusal) -> OutboxInterface.Failure {
        .refused(reason: refusal.reason, message: refusal.message)
    }
}
