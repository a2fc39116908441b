import IntrapushInterface
import IntrapushStore
import IntrapushSupport

/// The notifications as the agent may see them: through the daemon's local API, which shows this
/// user only what is addressed to them and wakes the agent (a `Subscribe` call kept open) as each
/// is committed. No file of the daemon's is read.
final class NotificationSource {
    enum Trouble: Equatable {
        /// No daemon answers: one will start.
        case notYet
        /// This user may not read notifications: only an administrator can change that.
        case notPermitted(String)
        /// Anything else, in words; tried again later.
        case unusable(String)
    }

    /// A call the daemon refused, in its words.
    struct Refused: Error {
        var message: String
    }

    let socketPath: String
    private var subscription: VarlinkConnection?
    /// A daemon that takes a call and does not answer within this is treated as gone.
    static let answerTimeout: Duration = .seconds(5)

    init(socketPath: String) {
        self.socketPath = socketPath
    }

    /// Readable when a notification was committed for this user, or the daemon went away;
    /// `nil` while there is no subscription.
    var descriptor: Int32? { subscription?.descriptor }

    /// Subscribes unless subscribed; what stands in the way otherwise.
    func prepare() -> Trouble? {
        if subscription != nil { return nil }
        do {
            let connection = try VarlinkConnection(path: socketPath)
            let caller = try connection.call(VarlinkCall(method: "io.intrapush.Daemon.WhoAmI"), timeout: Self.answerTimeout)
            guard caller.parameters["reads"]?.bool == true else { return .notPermitted("intrapushd does not let you read notifications") }
            try connection.send(VarlinkCall(method: "io.intrapush.Notifications.Subscribe", more: true))
            subscription = connection
            return nil
        } catch {
            switch error {
            case .notRunning: return .notYet
            case .permissionDenied(let path): return .notPermitted("you may not connect to intrapushd at \(path)")
            case .noAnswer: return .unusable("intrapushd did not answer")
            case .failed(_, let reason): return .unusable(reason)
            }
        }
    }

    /// Takes what the subscription has sent so far; `false` when it ended (the daemon stopped,
    /// or dropped a subscriber that did not read), and a new one is needed.
    func drainSubscription() -> Bool {
        guard let subscription else { return false }
        do {
            while true {
                let reply = try subscription.nextReply(timeout: .zero)
                guard reply.error == nil, reply.continues else { break }
            }
        } catch .noAnswer {
            return true
        } catch {}
        self.subscription = nil
        return false
    }

    /// The unread notifications after `cursor` addressed to this user: the newest `catchUp` and
    /// the count of the rest. A cursor beyond the last id means the database was made anew:
    /// everything in it is after.
    func unread(after cursor: Int64, catchUp: Int) throws -> UnreadBatch {
        let connection = try VarlinkConnection(path: socketPath)
        func call(_ method: String, _ parameters: [String: JSONValue]) throws -> VarlinkReply {
            let reply = try connection.call(VarlinkCall(method: method, parameters: parameters), timeout: Self.answerTimeout)
            if let error = reply.error { throw Refused(message: reply.parameters["message"]?.string ?? error) }
            return reply
        }
        func records(_ reply: VarlinkReply) -> [NotificationRecord] {
            guard case .array(let values)? = reply.parameters["notifications"] else { return [] }
            return values.compactMap(NotificationRecord.init(varlinkValue:))
        }
        let mine: [String: JSONValue] = ["mine": .bool(true)]
        let latest = records(try call("io.intrapush.Notifications.List", ["filter": .object(mine), "limit": JSONValue(1)])).first?.id ?? 0
        let start = latest < cursor ? 0 : cursor
        guard latest > start else { return UnreadBatch(newest: [], summarized: 0, through: latest) }
        let filter = JSONValue.object(mine.merging(["unread": .bool(true), "after_id": JSONValue(start), "last_id": JSONValue(latest)]) { $1 })
        guard let count = try call("io.intrapush.Notifications.Count", ["filter": filter]).parameters["count"]?.integer else {
            throw Refused(message: "intrapushd's answer could not be read")
        }
        let newest = catchUp > 0 ? records(try call("io.intrapush.Notifications.List", ["filter": filter, "limit": JSONValue(min(catchUp, 1000))])) : []
        return UnreadBatch(newest: newest.reversed(), summarized: count - Int64(newest.count), through: latest)
    }

    /// Ends the subscription, so that the next `prepare` makes a new one (after a failed read).
    func close() {
        subscription = nil
    }
}
