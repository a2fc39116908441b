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
    /// pipe reports it), or the daemon stops.
    package static func follow(socketPath: String, backlog: Int, _ body: ([NotificationRecord]) -> Bool) throws(CommandFailure) {
        let stopSignals = StopSignalPipe.install()
        var after: Int64?
        if backlog > 0 {
            var recent: [NotificationRecord] = []
            try ReadAccess.daemon(socketPath: socketPath).forEach(NotificationQuery(limit: backlog, order: .newestFirstReversed)) { recent.append($0) }
            after = recent.last?.id
            guard body(recent) else { return }
        }
        let client = try Self.client(socketPath)
        let replies: LocalAPIReplies<NotificationsInterface.Subscribe>
        do {
            replies = try client.start(NotificationsInterface.Subscribe.self, .init(afterID: after), more: true)
        } catch {
            throw error.commandFailure
        }
        while true {
            // Every reply already read first: poll(2) does not see what is in our buffer.
            while true {
                let reply: NotificationsInterface.Subscribe.Reply?
                do {
                    reply = try replies.next(timeout: .zero)
                } catch .unreachable(.noAnswer) {
                    break
                } catch .unreachable {
                    throw CommandFailure(.unavailable, "intrapushd stopped; nothing more to follow")
                } catch {
                    throw error.commandFailure
                }
                guard let reply else { throw CommandFailure(.unavailable, "intrapushd ended the subscription; nothing more to follow") }
                guard body([NotificationRecord(reply.notification)]) else { return }
            }
            var descriptors = [
                pollfd(fd: client.connection.descriptor, events: Int16(POLLIN), revents: 0),
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
