import NIOCore

/// The Varlink server's ceilings (docs/operating.md, "Limits"): anyone on the host may connect, and nobody
/// may crash the daemon, grow it without bound, hold its descriptors, or keep another person
/// out. Connections are counted per user, as libvirt's `max_clients` and sd-varlink's
/// per-uid limit do; each connection answers one call at a time and reads nothing meanwhile,
/// so a user's unfinished calls are at most their connections.
struct VarlinkLimits: Sendable {
    /// Connections one user may have open; their next one is refused with `Busy`.
    var connectionsPerUser = 32
    /// Connections of users who are not privileged, all together.
    var connectionsOfUsers = 256
    /// All connections, the privileged ones (root, the admin group, the daemon's user) included:
    /// beyond `connectionsOfUsers` only they get in, so someone can always look. Below the
    /// unit's LimitNOFILE=, with the daemon's own descriptors.
    var connections = 384
    /// Refused connections that are read for their one call, to be answered `Busy`; a new one
    /// beyond these closes the oldest, unanswered, so that the newest is always told.
    var refusalsAnswered = 16
    /// How long a refused connection may take to send its call.
    var refusalDeadline: TimeAmount = .seconds(2)
    /// How long a connection may sit with no call in progress (a message that never ends included).
    var idleDeadline: TimeAmount = .seconds(20)
    /// Unfinished messages on all connections together may not exceed this many bytes, or
    /// twice the longest message when that is larger.
    var leastMessageBudget = 16 << 20

    init() {}

    /// A message carries at most one outbox message, escaped (six bytes for one at worst).
    func longestMessage(maximumMessageSize: Int) -> Int {
        max(1 << 20, maximumMessageSize * 6 + 65536)
    }

    func messageBudget(maximumMessageSize: Int) -> Int {
        max(leastMessageBudget, 2 * longestMessage(maximumMessageSize: maximumMessageSize))
    }
}

/// What all connections hold together: how many each user has open, and the bytes of messages
/// buffered. Confined to the event loop the socket runs on.
final class VarlinkAdmission: @unchecked Sendable {
    /// What a new connection may do.
    enum Decision: Equatable {
        /// Within its owner's share: it may call.
        case admitted
        /// Over it: its one call is answered `Busy`, then it is closed.
        case refused
    }

    let limits: VarlinkLimits
    let eventLoop: any EventLoop
    private var perUser: [UInt32: Int] = [:]
    private(set) var openConnections = 0
    private(set) var usersConnections = 0
    /// The refused connections still waiting for their call, oldest first: how to close each.
    private var refusals: [(id: ObjectIdentifier, close: () -> Void)] = []
    private(set) var bufferedBytes = 0

    var refusing: Int { refusals.count }

    init(limits: VarlinkLimits, eventLoop: any EventLoop) {
        self.limits = limits
        self.eventLoop = eventLoop
    }

    /// A connection of `user` opened; a privileged one counts only against the total. A refused
    /// one is `connection`, closed by `close` when newer refusals need its place.
    func connectionOpened(by user: UInt32, isPrivileged: Bool, connection: ObjectIdentifier, close: @escaping () -> Void) -> Decision {
        eventLoop.assertInEventLoop()
        let fits = openConnections < limits.connections
            && (isPrivileged || (perUser[user, default: 0] < limits.connectionsPerUser && usersConnections < limits.connectionsOfUsers))
        if fits {
            openConnections += 1
            perUser[user, default: 0] += 1
            if !isPrivileged { usersConnections += 1 }
            return .admitted
        }
        if refusals.count >= limits.refusalsAnswered {
            refusals.removeFirst().close()
        }
        refusals.append((connection, close))
        return .refused
    }

    /// An admitted connection of `user` closed.
    func connectionClosed(by user: UInt32, isPrivileged: Bool) {
        eventLoop.assertInEventLoop()
        openConnections -= 1
        if !isPrivileged { usersConnections -= 1 }
        let left = perUser[user, default: 1] - 1
        perUser[user] = left == 0 ? nil : left
    }

    /// A refused connection closed (answered, timed out, or made room for a newer one).
    func refusalEnded(_ connection: ObjectIdentifier) {
        eventLoop.assertInEventLoop()
        refusals.removeAll { $0.id == connection }
    }

    /// The connections `user` has open.
    func connections(of user: UInt32) -> Int {
        perUser[user, default: 0]
    }

    /// Sets `bytes` more of buffered messages aside, when the budget has room for them.
    func reserve(_ bytes: Int, maximumMessageSize: Int) -> Bool {
        eventLoop.assertInEventLoop()
        guard bytes <= limits.messageBudget(maximumMessageSize: maximumMessageSize) - bufferedBytes else { return false }
        bufferedBytes += bytes
        return true
    }

    func release(_ bytes: Int) {
        eventLoop.assertInEventLoop()
        bufferedBytes -= bytes
    }
}
