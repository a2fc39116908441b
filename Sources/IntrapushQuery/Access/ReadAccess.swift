// SPDX-License-Identifier: Apache-2.0

import IntrapushConfiguration
import IntrapushInterface
import IntrapushStore
import IntrapushSupport

/// Where the CLI reads notifications: the database itself for an administrator (root, the
/// daemon's user, the group intrapush-admin), through the daemon's local API for everyone else,
/// who sees only what is addressed to them. Either way marks are the user's own.
package enum ReadAccess {
    case direct(NotificationReader, Viewer)
    /// The local API's socket.
    case daemon(socketPath: String)

    /// How this process reads the database at `path`.
    package static func open(path: String) throws(CommandFailure) -> ReadAccess {
        guard AccessPolicy.currentProcessAdministers(databasePath: path) else {
            return .daemon(socketPath: Configuration.localAPISocket(forDatabase: path))
        }
        try DatabaseLocator.requireExisting(path)
        do {
            return .direct(try NotificationReader(path: path), Viewer.currentUser(seesEverything: true))
        } catch {
            throw CommandFailure.database(error, path: path)
        }
    }

    /// Calls `body` with each selected notification, in the query's order.
    package func forEach(_ query: NotificationQuery, _ body: (NotificationRecord) throws -> Void) throws(CommandFailure) {
        switch self {
        case .direct(let reader, let viewer):
            var query = query
            query.viewer = viewer
            do { try reader.forEach(query, body) } catch { throw CommandFailure.database(error, path: reader.path) }
        case .daemon(let socketPath):
            var query = query
            // All of them, printed oldest first, is the oldest first: nothing to hold and turn.
            if query.order == .newestFirstReversed, query.limit == nil { query.order = .oldestFirst }
            let parameters = NotificationsInterface.List.Parameters(
                filter: query.localAPIFilter, limit: Int64(query.limit ?? 0), oldestFirst: query.order == .oldestFirst ? true : nil)
            var reversed: [NotificationRecord] = []
            let client = try Self.client(socketPath)
            let replies: LocalAPIReplies<NotificationsInterface.List>
            do { replies = try client.start(NotificationsInterface.List.self, parameters, more: true) } catch { throw error.commandFailure }
            while true {
                let reply: NotificationsInterface.List.Reply?
                do { reply = try replies.next() } catch { throw error.commandFailure }
                guard let reply else { break }
                for notification in reply.notifications {
                    let record = NotificationRecord(notification)
                    if query.order == .newestFirstReversed {
                        reversed.append(record)
                    } else {
                        do { try body(record) } catch { throw CommandFailure(.ioError, "\(error)") }
                    }
                }
            }
            do { for record in reversed.reversed() { try body(record) } } catch { throw CommandFailure(.ioError, "\(error)") }
        }
    }

    /// How many notifications the query selects.
    package func count(_ query: NotificationQuery) throws(CommandFailure) -> Int64 {
        switch self {
        case .direct(let reader, let viewer):
            var query = query
            query.viewer = viewer
            do { return try reader.count(query) } catch { throw CommandFailure.database(error, path: reader.path) }
        case .daemon(let socketPath):
            let client = try Self.client(socketPath)
            do {
                return try client.call(NotificationsInterface.Count.self, .init(filter: query.localAPIFilter)).count
            } catch {
                throw error.commandFailure
            }
        }
    }

    /// The notification with this id, when the user may see it.
    package func notification(id: Int64) throws(CommandFailure) -> NotificationRecord? {
        switch self {
        case .direct(let reader, let viewer):
            do { return try reader.notification(id: id, viewer: viewer) } catch { throw CommandFailure.database(error, path: reader.path) }
        case .daemon(let socketPath):
            let client = try Self.client(socketPath)
            do {
                return NotificationRecord(try client.call(NotificationsInterface.Show.self, .init(id: id)).notification)
            } catch .failed(.noSuchNotification) {
                return nil
            } catch {
                throw error.commandFailure
            }
        }
    }

    /// Where the answer comes from, for messages.
    package var location: String {
        switch self {
        case .direct(let reader, _): reader.path
        case .daemon(let socketPath): "intrapushd (\(socketPath))"
        }
    }

    /// A connection to the daemon, for someone who has no other way to read.
    static func client(_ socketPath: String) throws(CommandFailure) -> LocalAPIClient {
        guard let client = try LocalAPIClient.connectIfRunning(path: socketPath) else { throw notRunning() }
        return client
    }

    static func notRunning() -> CommandFailure {
        CommandFailure(
            .unavailable,
            "intrapushd is not running, and only administrators read the database itself; ask an administrator to start it (sudo systemctl start intrapush)")
    }
}
