import IntrapushInterface
import IntrapushStore
import IntrapushSupport
import NIOCore

extension Gate {
    /// `io.intrapush.Outbox`: queueing as the host, for those granted it. Every answer comes
    /// only after the commit.
    func answerOutbox(_ call: VarlinkCall, on connection: VarlinkConnectionHandler) {
        switch call.member {
        case "Send", "Request":
            guard let text = call.parameters["message"]?.string else { return connection.fail(.invalidParameter("message")) }
            let isRequest = call.member == "Request"
            var timeout: Duration?
            switch call.parameters["timeout_ms"] {
            case nil, .null?: break
            case let value?:
                guard isRequest, let milliseconds = value.integer, (1...limits.longestRequestTimeout.milliseconds).contains(milliseconds) else {
                    return connection.fail(.invalidParameter("timeout_ms"))
                }
                timeout = .milliseconds(milliseconds)
            }
            queue(text, kind: isRequest ? .request : .message, timeout: timeout, call: call, on: connection)
        case "Wake":
            // Rows were queued directly while no daemon answered; this one started meanwhile.
            outbox.wake()
            connection.send(VarlinkReply())
        default:
            connection.fail(.methodNotFound(call.method))
        }
    }

    private func queue(_ text: String, kind: OutboxKind, timeout: Duration?, call: VarlinkCall, on connection: VarlinkConnectionHandler) {
        let submission: OutboxSubmission
        do {
            submission = try outbox.settings.submission(text, kind: kind, timeout: timeout, queuedAt: WallClock.nowMilliseconds())
        } catch {
            return connection.fail(Self.refused(error))
        }
        outbox.queue(submission).assumeIsolated().whenComplete { result in
            switch result {
            case .success(.success(let row)):
                let queued: [String: JSONValue] = ["row": JSONValue(row), "message_id": .string(submission.message.id)]
                guard kind == .request else { return connection.send(VarlinkReply(parameters: queued)) }
                self.awaitReply(row: row, queued: queued, call: call, on: connection)
            case .success(.failure(let refusal)):
                connection.fail(Self.refused(refusal))
            case .failure(let error):
                connection.fail(self.storeFailure(error, interface: call.interface, what: "store the message"))
            }
        }
    }

    private func awaitReply(row: Int64, queued: [String: JSONValue], call: VarlinkCall, on connection: VarlinkConnectionHandler) {
        if call.more { connection.send(VarlinkReply(parameters: queued.merging(["reply": .null]) { $1 }, continues: true)) }
        let stopAwaiting = connection.onClose { self.outbox.stopAwaiting(row: row) }
        outbox.awaitReply(row: row).assumeIsolated().whenSuccess { outcome in
            connection.cancelOnClose(stopAwaiting)
            switch outcome {
            case .replied(let reply):
                connection.send(VarlinkReply(parameters: queued.merging(["reply": .string(reply)]) { $1 }))
            case .expired:
                connection.fail(VarlinkError("io.intrapush.Outbox.RequestExpired", [
                    "message_id": queued["message_id"] ?? .null,
                    "message": .string("no reply to request \(queued["message_id"]?.string ?? "") in time; it expired and is not sent again"),
                ]))
            }
        }
    }

    static func refused(_ refusal: OutboxRefusal) -> VarlinkError {
        VarlinkError("io.intrapush.Outbox.Refused", ["reason": .string(refusal.reason), "message": .string(refusal.message)])
    }
}
