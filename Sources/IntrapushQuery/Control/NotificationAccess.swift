#if canImport(Glibc)
import Glibc
#endif
import IntrapushConfiguration
import IntrapushInterface
import IntrapushStore
import IntrapushSupport

/// Where the CLI reads notifications: the database itself for an administrator (root, the
/// daemon's user, the group intrapush-admin), through the daemon's gate for everyone else,
/// who sees only what is addressed to them. Either way marks are the user's own.
package enum NotificationAccess {
    case direct(NotificationReader, Viewer)
    case gate(LocalAPI)

    /// How this process reads the database at `path`.
    package static func open(path: String) throws(CommandFailure) -> NotificationAccess {
        guard AccessPolicy.currentProcessAdministers(databasePath: path) else {
            return .gate(LocalAPI(socketPath: Configuration.controlSocket(forDatabase: path)))
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
        case .gate(let api):
            var query = query
            // All of them, printed oldest first, is the oldest first: nothing to hold and turn.
            if query.order == .newestFirstReversed, query.limit == nil { query.order = .oldestFirst }
            var parameters: [String: JSONValue] = ["filter": query.varlinkFilter, "limit": JSONValue(query.limit ?? 0)]
            if query.order == .oldestFirst { parameters["oldest_first"] = .bool(true) }
            var reversed: [NotificationRecord] = []
            let reached = try api.call("io.intrapush.Notifications.List", parameters, more: true) { reply throws(CommandFailure) in
                guard case .array(let values)? = reply.parameters["notifications"] else { throw Self.unreadable() }
                for value in values {
                    guard let record = NotificationRecord(varlinkValue: value) else { throw Self.unreadable() }
                    if query.order == .newestFirstReversed {
                        reversed.append(record)
                    } else {
                        do { try body(record) } catch { throw CommandFailure(.ioError, "\(error)") }
                    }
                }
            }
            guard reached else { throw api.notRunning() }
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
        case .gate(let api):
            guard let count = try api.require("io.intrapush.Notifications.Count", ["filter": query.varlinkFilter]).parameters["count"]?.integer
            else { throw Self.unreadable() }
            return count
        }
    }

    /// The notification with this id, when the user may see it.
    package func notification(id: Int64) throws(CommandFailure) -> NotificationRecord? {
        switch self {
        case .direct(let reader, let viewer):
            do { return try reader.notification(id: id, viewer: viewer) } catch { throw CommandFailure.database(error, path: reader.path) }
        case .gate(let api):
            let reply: VarlinkReply
            do {
                reply = try api.require("io.intrapush.Notifications.Show", ["id": JSONValue(id)])
            } catch {
                if error.kind == .notFound { return nil }
                throw error
            }
            guard let value = reply.parameters["notification"], let record = NotificationRecord(varlinkValue: value) else {
                throw Self.unreadable()
            }
            return record
        }
    }

    /// Where the answer comes from, for messages.
    package var location: String {
        switch self {
        case .direct(let reader, _): reader.path
        case .gate(let api): "intrapushd (\(api.socketPath))"
        }
    }

    static func unreadable() -> CommandFailure {
        CommandFailure(.ioError, "the daemon's answer could not be read; is intrapush the same version as intrapushd?")
    }
}

extension LocalAPI {
    /// `intrapush follow` through the gate: the newest `backlog`, then each new notification for
    /// this user as the daemon commits it (`Subscribe`), until SIGINT or SIGTERM (exit 0, as the
    /// administrator's `follow`), the reader of standard output goes (`body` says so, or the
    /// pipe reports it), or the daemon stops.
    package func follow(backlog: Int, _ body: ([NotificationRecord]) -> Bool) throws(CommandFailure) {
        let stopSignals = StopSignalPipe.install()
        var after: Int64?
        if backlog > 0 {
            var recent: [NotificationRecord] = []
            try NotificationAccess.gate(self).forEach(NotificationQuery(limit: backlog, order: .newestFirstReversed)) { recent.append($0) }
            after = recent.last?.id
            guard body(recent) else { return }
        }
        let connection: VarlinkConnection
        do {
            connection = try VarlinkConnection(path: socketPath)
            try connection.send(VarlinkCall(
                method: "io.intrapush.Notifications.Subscribe", parameters: after.map { ["after_id": JSONValue($0)] } ?? [:], more: true))
        } catch .notRunning {
            throw notRunning()
        } catch {
            throw Self.failure(error)
        }
        while true {
            // Every reply already read first: poll(2) does not see what is in our buffer.
            while true {
                let reply: VarlinkReply
                do {
                    reply = try connection.nextReply(timeout: .zero)
                } catch .noAnswer {
                    break
                } catch {
                    throw CommandFailure(.unavailable, "intrapushd stopped; nothing more to follow")
                }
                if let error = reply.error { throw Self.failure(VarlinkError(error, reply.parameters)) }
                guard let value = reply.parameters["notification"], let record = NotificationRecord(varlinkValue: value) else {
                    throw NotificationAccess.unreadable()
                }
                guard body([record]) else { return }
            }
            var descriptors = [
                pollfd(fd: connection.descriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: stopSignals.readDescriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: 1, events: 0, revents: 0),
            ]
            guard poll(&descriptors, nfds_t(descriptors.count), -1) >= 0 || errno == EINTR else {
                throw CommandFailure(.ioError, "cannot wait for intrapushd: \(String(cString: strerror(errno)))")
            }
            if descriptors[1].revents != 0 { return }
            if descriptors[2].revents & Int16(POLLERR | POLLHUP) != 0 { return }
        }
    }
}
