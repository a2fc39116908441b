// SPDX-License-Identifier: Apache-2.0

import IntrapushConfiguration
import IntrapushInterface
import IntrapushStore
import IntrapushSupport

/// How the CLI's writes reach the database: through the daemon's local API (the daemon is the
/// one writer; it wakes at once), or, only when no daemon runs, directly, when this user may
/// write the file (docs/local-api.md).
package struct WriteAccess {
    package let databasePath: String
    /// For writing directly: `upstream_id_field`, `max_message_size`, `outbox_ttl`, the receipts.
    package let configuration: Configuration
    package var socketPath: String { Configuration.localAPISocket(forDatabase: databasePath) }

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

    /// Queues a message for the server; returns once it is committed.
    package func queue(_ text: String) throws(CommandFailure) -> Queued {
        guard let client = try LocalAPIClient.connectIfRunning(path: socketPath) else {
            return try queueDirectly(text, kind: .message, timeout: nil)
        }
        do {
            let reply = try client.call(OutboxInterface.Send.self, .init(message: text))
            return Queued(rowID: reply.row, messageID: reply.messageID, route: .daemon)
        } catch {
            throw error.commandFailure
        }
    }

    /// Queues a request, and waits for its reply (`nil`: no daemon runs, the request was
    /// written directly and the caller waits for the row).
    package func request(_ text: String, timeout: Duration?) throws(CommandFailure) -> (Queued, reply: String?) {
        guard let client = try LocalAPIClient.connectIfRunning(path: socketPath) else {
            return (try queueDirectly(text, kind: .request, timeout: timeout), nil)
        }
        // The daemon answers by the request's deadline; a daemon that does not is hung.
        let patience = (timeout ?? configuration.requestTimeout) + .seconds(5)
        var queued: Queued?
        do {
            let replies = try client.start(OutboxInterface.Request.self, .init(message: text, timeoutMS: timeout?.milliseconds), more: true)
            while let answer = try replies.next(timeout: patience) {
                queued = Queued(rowID: answer.row, messageID: answer.messageID, route: .daemon)
                if let reply = answer.reply { return (queued!, reply) }
            }
        } catch {
            throw error.commandFailure
        }
        throw CommandFailure(.ioError, "intrapushd ended request \(queued?.messageID ?? "") without its reply; see its log (journalctl -u intrapush)")
    }

    /// Marks notifications read (nil: all) for this user and queues their receipts.
    package func markRead(ids: [Int64]?) throws(CommandFailure) -> (NotificationMarker.Outcome, Route) {
        guard let client = try LocalAPIClient.connectIfRunning(path: socketPath) else {
            return (try markReadDirectly(ids: ids), .direct)
        }
        do {
            let reply = try client.call(NotificationsInterface.MarkRead.self, .init(ids: ids, all: ids == nil ? true : nil))
            let outcome = NotificationMarker.Outcome(
                marked: Int(reply.marked), alreadyRead: Int(reply.alreadyRead), missing: reply.missing, receipts: Int(reply.receipts))
            return (outcome, .daemon)
        } catch {
            throw error.commandFailure
        }
    }
}
