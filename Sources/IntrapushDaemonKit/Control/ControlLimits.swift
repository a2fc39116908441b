import IntrapushInterface
import IntrapushConfiguration
import NIOCore

/// The control socket's ceilings (README "Limits"): a group member may connect, and none of
/// them may crash the daemon, grow it without bound or hold its descriptors.
package struct ControlLimits: Sendable {
    /// Connections open at once; one more is answered 75 and closed.
    package var maximumConnections = 64
    /// How long a client may take to send its request, and to take its answer.
    package var requestDeadline: TimeAmount = .seconds(10)
    /// The longest `mark-read` list: more than the ids a command line can carry.
    package var largestMarkReadList = 2 << 20
    /// Bodies being received on all connections together may not exceed this many bytes, or
    /// twice `max_message_size` when that is larger.
    package var leastBodyBudget = 16 << 20
    /// The longest timeout a `request` may name: as long as the longest duration the
    /// configuration accepts.
    package var longestRequestTimeout: Duration = DurationParser.longest

    package init() {}

    /// The largest body `verb` may carry, or `nil` for a verb the daemon does not know.
    func largestBody(of verb: Substring, maximumMessageSize: Int) -> Int? {
        switch verb {
        case "send", "request": maximumMessageSize
        case "mark-read": largestMarkReadList
        case "status", "wake": 0
        default: nil
        }
    }

    func bodyBudget(maximumMessageSize: Int) -> Int {
        max(leastBodyBudget, 2 * maximumMessageSize)
    }

    /// A `request`'s timeout argument: whole milliseconds from 1 to `longestRequestTimeout`, or
    /// `-` for the configured `request_timeout`. Digits only, so no arithmetic on it can trap.
    func requestTimeout(_ argument: String) -> Result<Duration?, ControlRefusal> {
        guard let timeout = ControlRequestHeader.requestTimeout(argument, longestMilliseconds: longestRequestTimeout.milliseconds) else {
            return .failure(ControlRefusal(answer: ControlAnswer(
                status: 64, body: "the request's timeout must be from 1 ms to \(DurationParser.format(longestRequestTimeout))")))
        }
        return .success(timeout)
    }
}

/// What all control connections hold together: how many are open and how many body bytes they
/// have announced. Confined to the event loop the control socket runs on.
final class ControlAdmission: @unchecked Sendable {
    let limits: ControlLimits
    let eventLoop: any EventLoop
    private(set) var openConnections = 0
    private(set) var reservedBodyBytes = 0

    init(limits: ControlLimits, eventLoop: any EventLoop) {
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

    /// Sets `bytes` of a body aside, when the budget has room for them.
    func reserve(_ bytes: Int, maximumMessageSize: Int) -> Bool {
        eventLoop.assertInEventLoop()
        guard bytes <= limits.bodyBudget(maximumMessageSize: maximumMessageSize) - reservedBodyBytes else { return false }
        reservedBodyBytes += bytes
        return true
    }

    func release(_ bytes: Int) {
        eventLoop.assertInEventLoop()
        reservedBodyBytes -= bytes
    }
}
