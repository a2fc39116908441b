// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif
import IntrapushInterface
import IntrapushStore
import IntrapushSupport

extension ReadAccess {
    /// `intrapush follow` through the daemon: the newest `backlog`, then each new notification
    /// for this user as the daemon commits it (`Subscribe`), until SIGINT or SIGTERM (exit 0, as
    /// the administrator's `follow`), the reader of standard output goes (`body` says so, or the
    /// pipe reports it), or the daemon stops. A restart of the daemon is ridden through: the
    /// subscription is made again after the last notification printed.
    package static func follow(socketPath: String, backlog: Int, _ body: ([NotificationRecord]) -> Bool) throws(CommandFailure) {
        let stopSignals = StopSignalPipe.install()
        var after: Int64?
        if backlog > 0 {
            var recent: [NotificationRecord] = []
            try ReadAccess.daemon(socketPath: socketPath).forEach(NotificationQuery(limit: backlog, order: .newestFirstReversed)) { recent.append($0) }
            after = recent.last?.id
            guard body(recent) else { return }
        }
        // Closed unanswered this many times in a row, with nothing in between: the daemon is
        // not restarting but failing.
        var closedInARow = 0
        while closedInARow < 3 {
            let client: LocalAPIClient
            do {
                client = try Self.client(socketPath)
            } catch where closedInARow > 0 {
                throw CommandFailure(.unavailable, "intrapushd stopped; nothing more to follow")
            }
            switch try subscription(client, after: &after, stopSignals: stopSignals, body) {
            case .ended: return
            case .closedUnanswered(let printed): closedInARow = printed ? 1 : closedInARow + 1
            }
        }
        throw CommandFailure(.unavailable, "intrapushd keeps closing the subscription; see its log (journalctl -u intrapush)")
    }

    private enum SubscriptionEnd {
        /// A stop signal, or the reader of standard output went.
        case ended
        /// The daemon closed the connection (a restart); `printed`: something came first.
        case closedUnanswered(printed: Bool)
    }

    /// One subscription, printing what comes after `after` (moved along) until it ends.
    private static func subscription(
        _ client: LocalAPIClient, after: inout Int64?, stopSignals: StopSignalPipe, _ body: ([NotificationRecord]) -> Bool
    ) throws(CommandFailure) -> SubscriptionEnd {
        let replies: LocalAPIReplies<NotificationsInterface.Subscribe>
        do {
            replies = try client.start(NotificationsInterface.Subscribe.self, .init(afterID: after), more: true)
        } catch .unreachable(.closedUnanswered) {
            return .closedUnanswered(printed: false)
        } catch {
            throw error.commandFailure
        }
        var printed = false
        while true {
            // Every reply already read first: poll(2) does not see what is in our buffer.
            while true {
                let reply: NotificationsInterface.Subscribe.Reply?
                do {
                    reply = try replies.next(timeout: .zero)
                } catch .unreachable(.noAnswer) {
                    break
                } catch .unreachable(.closedUnanswered) {
                    return .closedUnanswered(printed: printed)
                } catch .unreachable {
                    throw CommandFailure(.unavailable, "intrapushd stopped; nothing more to follow")
                } catch {
                    throw error.commandFailure
                }
                guard let reply else { throw CommandFailure(.unavailable, "intrapushd ended the subscription; nothing more to follow") }
                let record = NotificationRecord(reply.notification)
                after = record.id
                printed = true
                guard body([record]) else { return .ended }
            }
            var descriptors = [
                pollfd(fd: client.connection.descriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: stopSignals.readDescriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: 1, events: 0, revents: 0),
            ]
            guard poll(&descriptors, nfds_t(descriptors.count), -1) >= 0 || errno == EINTR else {
                throw CommandFailure(.ioError, "cannot wait for intrapushd: \(String(cString: strerror(errno)))")
            }
            if descriptors[1].revents != 0 { return .ended }
            if descriptors[2].revents & Int16(POLLERR | POLLHUP) != 0 { return .ended }
        }
    }
}
