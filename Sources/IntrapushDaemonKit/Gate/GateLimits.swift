import IntrapushConfiguration
import NIOCore

/// The local API's ceilings (README "Limits"): anyone on the host may connect, and nobody may
/// crash the daemon, grow it without bound, hold its descriptors or slow its pushes.
struct GateLimits: Sendable {
    /// Connections open at once; one more is told so and closed.
    var maximumConnections = 64
    /// How long a connection may sit with no call in progress (a message that never ends
    /// included).
    var idleDeadline: TimeAmount = .seconds(20)
    /// Calls one connection may pipeline before its first is answered.
    var maximumPipelinedCalls = 16
    /// Queries of one user waiting behind the one running; more are answered Busy.
    var maximumWaitingQueries = 4
    /// Rows in one reply of a list, and the reply's size they stop at.
    var rowsPerReply = 500
    var bytesPerReply = 1 << 20
    /// The most a list without `more` returns: rows, and the text after which it stops.
    var largestList = 1000
    var largestListBytes = 16 << 20
    /// What a subscriber or a streamed list may leave unread in the daemon before it is
    /// dropped (a subscriber) or waited for (a list).
    var unreadReplyBytes = 4 << 20
    /// Messages being received on all connections together may not exceed this many bytes, or
    /// twice the longest message when that is larger.
    var leastMessageBudget = 16 << 20
    /// The longest timeout a `Request` may name: as long as the longest duration the
    /// configuration accepts.
    var longestRequestTimeout: Duration = DurationParser.longest

    init() {}

    /// A message carries at most one outbox message, escaped (six bytes for one at worst).
    func longestMessage(maximumMessageSize: Int) -> Int {
        max(1 << 20, maximumMessageSize * 6 + 65536)
    }

    func messageBudget(maximumMessageSize: Int) -> Int {
        max(leastMessageBudget, 2 * longestMessage(maximumMessageSize: maximumMessageSize))
    }
}

/// What all connections hold together: how many are open and how many bytes of unfinished
/// messages they buffer. Confined to the event loop the socket runs on.
final class GateAdmission: @unchecked Sendable {
    let limits: GateLimits
    let eventLoop: any EventLoop
    private(set) var openConnections = 0
    private(set) var bufferedBytes = 0

    init(limits: GateLimits, eventLoop: any EventLoop) {
        self.limits = limits
        self.eventLoop = eventLoop
    }

    /// A connection opened: whether it may stay.
    func connectionOpened() -> Bool {
        eventLoop.assertInEventLoop()
        guard openConnections < limits.maximumConnections else { return false }
        openConnections += 1
        return true
    }

    func connectionClosed() {
        eventLoop.assertInEventLoop()
        openConnections -= 1
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
