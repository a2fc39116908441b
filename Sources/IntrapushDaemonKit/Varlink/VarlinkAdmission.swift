// SPDX-License-Identifier: Apache-2.0

import NIOCore

/// The Varlink server's ceilings (docs/operating.md, "Limits"): anyone on the host may connect, and nobody
/// may crash the daemon, grow it without bound, hold its descriptors, or keep another person
/// out. Connections have places by their class (`ConnectionPlaces`); each answers one call at a
/// time and reads nothing meanwhile, so a person's unfinished calls are at most their
/// connections; the bytes of unfinished messages have a budget per connection, per person and
/// for all (`ByteBudget`).
struct VarlinkLimits: Sendable {
    var places = ConnectionPlaces<ObjectIdentifier>.Limits()
    /// Refused connections that are read for their one call, to be answered `Busy`; a new one
    /// beyond these closes the oldest, unanswered, so that the newest is always told.
    var refusalsAnswered = 16
    /// How long a refused connection may take to send its call.
    var refusalDeadline: TimeAmount = .seconds(2)
    /// How long a connection may sit with no call in progress (a message that never ends included).
    var idleDeadline: TimeAmount = .seconds(20)
    /// The longest message of a caller with no right: who they are, what the daemon is.
    var longestMessageWithoutRights = 64 << 10
    /// Unfinished messages of all connections together, at least.
    var leastTotalBytes = 64 << 20

    init() {}

    /// A message carries at most one outbox message, escaped (six bytes for one at worst).
    func longestMessage(maximumMessageSize: Int, of place: ConnectionClass = .person) -> Int {
        place == .noRights ? longestMessageWithoutRights : max(1 << 20, maximumMessageSize * 6 + 65536)
    }

    /// What one person's connections may hold together: two of their longest messages.
    func bytesPerPerson(maximumMessageSize: Int, of place: ConnectionClass) -> Int {
        2 * longestMessage(maximumMessageSize: maximumMessageSize, of: place)
    }

    func totalBytes(maximumMessageSize: Int) -> Int {
        max(leastTotalBytes, 4 * longestMessage(maximumMessageSize: maximumMessageSize))
    }
}

/// What all connections hold together: the places (`ConnectionPlaces`), the refusals waiting to
/// be told, the bytes of unfinished messages. Confined to the event loop the socket runs on.
final class VarlinkAdmission: @unchecked Sendable {
    let limits: VarlinkLimits
    let eventLoop: any EventLoop
    private var places: ConnectionPlaces<ObjectIdentifier>
    /// How to close each connection with a place, for room that must be made.
    private var closers: [ObjectIdentifier: () -> Void] = [:]
    /// The refused connections still waiting for their call, oldest first: how to close each.
    private var refusals: [(id: ObjectIdentifier, close: () -> Void)] = []
    private var bytes = ByteBudget()

    init(limits: VarlinkLimits, eventLoop: any EventLoop) {
        self.limits = limits
        self.eventLoop = eventLoop
        places = ConnectionPlaces(limits: limits.places)
    }

    var openConnections: Int { places.count }
    var refusing: Int { refusals.count }
    var bufferedBytes: Int { bytes.held }

    /// The connections `user` has open in `place`.
    func connections(of user: UInt32, as place: ConnectionClass) -> Int {
        places.count(of: user, as: place)
    }

    /// A connection of `user` asks for a place; `close` closes it, should room be needed later.
    /// True when admitted (idle connections of the largest holders closed to make room); false
    /// when refused, to be told `Busy`.
    func opened(_ connection: ObjectIdentifier, by user: UInt32, as place: ConnectionClass, close: @escaping () -> Void) -> Bool {
        eventLoop.assertInEventLoop()
        switch places.opened(connection, by: user, as: place) {
        case .admitted(let evicting):
            closers[connection] = close
            for victim in evicting { closers.removeValue(forKey: victim)?() }
            return true
        case .refused:
            if refusals.count >= limits.refusalsAnswered {
                refusals.removeFirst().close()
            }
            refusals.append((connection, close))
            return false
        }
    }

    func callStarted(on connection: ObjectIdentifier) {
        places.callStarted(connection)
    }

    func callEnded(on connection: ObjectIdentifier) {
        places.callEnded(connection)
    }

    /// A connection closed, admitted or refused.
    func closed(_ connection: ObjectIdentifier) {
        eventLoop.assertInEventLoop()
        places.closed(connection)
        closers[connection] = nil
        refusals.removeAll { $0.id == connection }
    }

    /// Sets `count` more bytes of `user`'s unfinished messages aside, when the budgets have room.
    func reserve(_ count: Int, by user: UInt32, as place: ConnectionClass, maximumMessageSize: Int) -> Bool {
        eventLoop.assertInEventLoop()
        return bytes.reserve(
            count, by: user, userLimit: limits.bytesPerPerson(maximumMessageSize: maximumMessageSize, of: place),
            total: limits.totalBytes(maximumMessageSize: maximumMessageSize))
    }

    func release(_ count: Int, by user: UInt32) {
        eventLoop.assertInEventLoop()
        bytes.release(count, by: user)
    }
}
