// SPDX-License-Identifier: Apache-2.0

import IntrapushInterface
import IntrapushStore
import IntrapushSupport

/// The notifications as the agent may see them: through the daemon's local API, which shows this
/// user only what is addressed to them and wakes the agent (a `Subscribe` call kept open) as each
/// is committed; and the marks the person makes, sent back the same way. No file of the
/// daemon's is read.
final class NotificationSource {
    enum Trouble: Equatable {
        /// No daemon answers: one will start.
        case notYet
        /// This user may not read notifications: only an administrator can change that.
        case notPermitted(String)
        /// Anything else, in words; tried again later.
        case unusable(String)
    }

    /// A call that did not give its answer, in words for the agent's log.
    struct Failed: Error {
        var reason: String
    }

    let socketPath: String
    private var subscription: (client: LocalAPIClient, replies: LocalAPIReplies<NotificationsInterface.Subscribe>)?
    /// A daemon that takes a call and does not answer within this is treated as gone.
    static let answerTimeout: Duration = .seconds(5)

    init(socketPath: String) {
        self.socketPath = socketPath
    }

    /// Readable when a notification was committed for this user, or the daemon went away;
    /// `nil` while there is no subscription.
    var descriptor: Int32? { subscription?.client.connection.descriptor }

    /// Subscribes unless subscribed; what stands in the way otherwise.
    func prepare() -> Trouble? {
        if subscription != nil { return nil }
        let client: LocalAPIClient
        do {
            client = try LocalAPIClient(path: socketPath)
        } catch {
            switch error {
            case .notRunning: return .notYet
            case .permissionDenied(let path): return .notPermitted("you may not connect to intrapushd at \(path)")
            case .noAnswer: return .unusable("intrapushd did not answer")
            case .closedUnanswered: return .notYet
            case .failed(_, let reason): return .unusable(reason)
            }
        }
        do {
            let caller = try client.call(DaemonInterface.WhoAmI.self, .init(), timeout: Self.answerTimeout)
            guard caller.reads else { return .notPermitted("intrapushd does not let you read notifications") }
        } catch {
            return .unusable(Self.words(error))
        }
        do {
            subscription = (client, try client.start(NotificationsInterface.Subscribe.self, .init(), more: true))
            return nil
        } catch {
            return .unusable(Self.words(error))
        }
    }

    /// Takes what the subscription has sent so far; `false` when it ended (the daemon stopped,
    /// or dropped a subscriber that did not read), and a new one is needed.
    func drainSubscription() -> Bool {
        guard let subscription else { return false }
        do {
            while try subscription.replies.next(timeout: .zero) != nil {}
        } catch .unreachable(.noAnswer) {
            return true
        } catch {}
        self.subscription = nil
        return false
    }

    /// The unread notifications after `cursor` addressed to this user: the newest `catchUp` and
    /// the count of the rest. A cursor beyond the last id means the database was made anew:
    /// everything in it is after.
    func unread(after cursor: Int64, catchUp: Int) throws(Failed) -> UnreadBatch {
        let client: LocalAPIClient
        do { client = try LocalAPIClient(path: socketPath) } catch { throw Failed(reason: Self.words(error)) }
        func call<Method: VarlinkMethod>(_ method: Method.Type, _ parameters: Method.Parameters) throws(Failed) -> Method.Reply {
            do { return try client.call(method, parameters, timeout: Self.answerTimeout) } catch { throw Failed(reason: Self.words(error)) }
        }
        let mine = NotificationsInterface.Filter(mine: true)
        let newestOfMine = try call(NotificationsInterface.List.self, .init(filter: mine, limit: 1))
        let latest = newestOfMine.notifications.first?.id ?? 0
        let start = latest < cursor ? 0 : cursor
        guard latest > start else { return UnreadBatch(newest: [], summarized: 0, through: latest) }
        let filter = NotificationsInterface.Filter(unread: true, mine: true, afterID: start, lastID: latest)
        let count = try call(NotificationsInterface.Count.self, .init(filter: filter)).count
        // With more: a reply of the daemon's is bounded, and the newest may be many and long.
        var newest: [NotificationRecord] = []
        if catchUp > 0 {
            do {
                let replies = try client.start(NotificationsInterface.List.self, .init(filter: filter, limit: Int64(min(catchUp, 1000))), more: true)
                while let reply = try replies.next(timeout: Self.answerTimeout) {
                    newest += reply.notifications.map(NotificationRecord.init)
                }
            } catch {
                throw Failed(reason: Self.words(error))
            }
        }
        return UnreadBatch(newest: newest.reversed(), summarized: count - Int64(newest.count), through: latest)
    }

    /// Marks `ids` read for this user through the daemon, which queues the read receipts.
    /// `false` when the daemon could not be reached (the marks wait in the cursor file);
    /// a refusal is the daemon's answer, given as `refused`.
    func markRead(_ ids: [Int64], refused: (String) -> Void) -> Bool {
        let client: LocalAPIClient
        do { client = try LocalAPIClient(path: socketPath) } catch { return false }
        do {
            _ = try client.call(NotificationsInterface.MarkRead.self, .init(ids: ids), timeout: Self.answerTimeout)
        } catch .unreachable {
            return false
        } catch {
            refused(Self.words(error))
        }
        return true
    }

    /// Ends the subscription, so that the next `prepare` makes a new one (after a failed read).
    func close() {
        subscription = nil
    }

    private static func words(_ failure: VarlinkConnection.Failure) -> String {
        switch failure {
        case .notRunning(let path): "nothing answers on \(path)"
        case .permissionDenied(let path): "you may not connect to intrapushd at \(path)"
        case .noAnswer: "intrapushd did not answer"
        case .closedUnanswered: "intrapushd closed the connection (it may be restarting)"
        case .failed(_, let reason): reason
        }
    }

    private static func words<Failure>(_ error: LocalAPIError<Failure>) -> String {
        switch error {
        case .unreachable(let failure): words(failure)
        case .failed(let failure): failure.varlinkError.message ?? failure.varlinkError.name
        case .service(let failure): failure.varlinkError.name
        case .unexpected(let what): what
        }
    }
}
