import IntrapushInterface
import IntrapushConfiguration
import IntrapushStore
import IntrapushSupport

/// How the CLI's writes reach the database: through the daemon's local API (the daemon is
/// the one writer; it wakes at once), or, only when no daemon runs, directly, when this user may
/// write the file (README "How the CLI reaches the daemon").
package struct DaemonWriter {
    package let databasePath: String
    /// For writing directly: `upstream_id_field`, `max_message_size`, `outbox_ttl`, the receipts.
    package let configuration: Configuration
    package var socketPath: String { Configuration.controlSocket(forDatabase: databasePath) }

    package init(databasePath: String, configuration: Configuration) {
        self.databasePath = databasePath
        self.configuration = configuration
    }

    /// Who did the write.
    package enum Route: Equatable {
        case daemon
        /// No daemon runs; the CLI wrote, and the daemon sends it once it starts.
        case direct
    }

    package struct Queued: Equatable {
        package var rowID: Int64
        package var messageID: String
        package var route: Route
    }

    var api: LocalAPI { LocalAPI(socketPath: socketPath) }

    /// Queues a message for the server; returns once it is committed.
    package func queue(_ text: String) throws(CommandFailure) -> Queued {
        guard let reply = try api.call("io.intrapush.Outbox.Send", ["message": .string(text)]) else {
            return try queueDirectly(text, kind: .message, timeout: nil)
        }
        return try Self.queued(reply)
    }

    /// Queues a request, and waits for its reply (`nil`: the daemon runs no more, the request was
    /// written directly and the caller waits for the row).
    package func request(_ text: String, timeout: Duration?) throws(CommandFailure) -> (Queued, reply: String?) {
        var parameters: [String: JSONValue] = ["message": .string(text)]
        if let timeout { parameters["timeout_ms"] = JSONValue(timeout.milliseconds) }
        var queued: Queued?
        var reply: String?
        // The daemon answers by the request's deadline; a daemon that does not is hung.
        let patience = (timeout ?? configuration.requestTimeout) + .seconds(5)
        let reached = try api.call("io.intrapush.Outbox.Request", parameters, more: true, timeout: patience) { answer throws(CommandFailure) in
            queued = try Self.queued(answer)
            reply = answer.parameters["reply"]?.string
        }
        guard reached, let queued else { return (try queueDirectly(text, kind: .request, timeout: timeout), nil) }
        return (queued, reply)
    }

    private static func queued(_ reply: VarlinkReply) throws(CommandFailure) -> Queued {
        guard let row = reply.parameters["row"]?.integer, let messageID = reply.parameters["message_id"]?.string else {
            throw CommandFailure(.ioError, "the daemon's answer could not be read; is intrapush the same version as intrapushd?")
        }
        return Queued(rowID: row, messageID: messageID, route: .daemon)
    }

    /// Marks notifications read (nil: all) for this user and queues their receipts.
    package func markRead(ids: [Int64]?) throws(CommandFailure) -> (NotificationMarker.Outcome, Route) {
        let parameters: [String: JSONValue] = ids.map { ["ids": .array($0.map { JSONValue($0) })] } ?? ["all": .bool(true)]
        guard let reply = try api.call("io.intrapush.Notifications.MarkRead", parameters) else {
            return (try markReadDirectly(ids: ids), .direct)
        }
        guard let marked = reply.parameters["marked"]?.integer, let alreadyRead = reply.parameters["already_read"]?.integer,
            let receipts = reply.parameters["receipts"]?.integer, case .array(let missing)? = reply.parameters["missing"]
        else {
            throw CommandFailure(.ioError, "the daemon's answer could not be read; is intrapush the same version as intrapushd?")
        }
        return (
            NotificationMarker.Outcome(
                marked: Int(marked), alreadyRead: Int(alreadyRead), missing: missing.compactMap(\.integer), receipts: Int(receipts)),
            .daemon
        )
    }
}
