import NIOCore

/// Which pushes wait for which org, which connection was sent what, and what was acknowledged.
///
/// Pure bookkeeping with no I/O, so the redelivery rules can be tested without sockets:
/// - each org has one queue of deliverable pushes, in sequence order;
/// - of the open connections of an org only the newest is sent deliveries;
/// - the k-th acknowledgement on a connection acknowledges the k-th push sent on it;
/// - when a connection ends, what it was sent but did not acknowledge becomes deliverable
///   again, merged back in sequence order.
struct PushLedger {
    typealias ConnectionID = Int

    /// What an acknowledgement frame turned out to acknowledge.
    enum Acknowledgement: Equatable {
        /// The oldest unacknowledged push sent on the connection.
        case matched(QueuedPush)
        /// That push too, but the acknowledgement named another message id.
        case mismatched(QueuedPush, receivedID: String)
        /// Nothing was waiting for an acknowledgement on this connection.
        case unexpected
    }

    private struct OrgQueue {
        var deliverable = CircularBuffer<QueuedPush>()
        /// Oldest first; the last one is the delivery target.
        var openConnections: [ConnectionID] = []
    }

    private struct ConnectionRecord {
        var org: String
        var unacknowledged = CircularBuffer<QueuedPush>()
    }

    private var orgs: [String: OrgQueue] = [:]
    private var connections: [ConnectionID: ConnectionRecord] = [:]

    /// The number the next queued push will get.
    private(set) var nextSequenceNumber = 1
    private(set) var pushesQueued = 0
    private(set) var deliveries = 0
    /// Distinct pushes acknowledged.
    private(set) var acknowledged = 0
    private(set) var droppedTooLarge = 0
    /// Pushes queued and neither acknowledged nor dropped, over all orgs.
    private(set) var unacknowledgedCount = 0

    init() {}

    /// Queues a push for `org` and returns its sequence number.
    mutating func queued(
        payload: ByteBuffer, isBinary: Bool, messageID: String?, org: String, isTimed: Bool = false
    ) -> Int {
        let sequenceNumber = nextSequenceNumber
        nextSequenceNumber += 1
        pushesQueued += 1
        unacknowledgedCount += 1
        let push = QueuedPush(
            sequenceNumber: sequenceNumber, messageID: messageID, payload: payload, isBinary: isBinary,
            isTimed: isTimed)
        orgs[org, default: OrgQueue()].deliverable.append(push)
        return sequenceNumber
    }

    /// The connection that deliveries for `org` go to, if one is open.
    func deliveryTarget(of org: String) -> ConnectionID? {
        orgs[org]?.openConnections.last
    }

    /// Records a new connection for `org`; being the newest, it becomes the delivery target.
    /// The org a connection serves.
    func org(of connection: ConnectionID) -> String? {
        connections[connection]?.org
    }

    mutating func connectionOpened(_ connection: ConnectionID, org: String) {
        connections[connection] = ConnectionRecord(org: org)
        orgs[org, default: OrgQueue()].openConnections.append(connection)
    }

    /// Takes the next deliverable push for `connection` and records it as sent on it.
    ///
    /// Returns `nil` when nothing is deliverable or another connection is the delivery target.
    mutating func nextDelivery(to connection: ConnectionID) -> QueuedPush? {
        guard let org = connections[connection]?.org,
            orgs[org]?.openConnections.last == connection,
            let push = orgs[org]?.deliverable.popFirst()
        else { return nil }
        connections[connection]?.unacknowledged.append(push)
        deliveries += 1
        return push
    }

    /// Matches an acknowledgement to the oldest push sent on `connection` and not yet acknowledged.
    ///
    /// `messageID` is the id the acknowledgement carried, `nil` when it carries none; an empty id
    /// stands for a push without one.
    mutating func acknowledgementReceived(on connection: ConnectionID, messageID: String?) -> Acknowledgement {
        guard let push = connections[connection]?.unacknowledged.popFirst() else { return .unexpected }
        acknowledged += 1
        unacknowledgedCount -= 1
        if let messageID, messageID != (push.messageID ?? "") {
            return .mismatched(push, receivedID: messageID)
        }
        return .matched(push)
    }

    /// Forgets the largest push sent on `connection` and not acknowledged: the client could not take it.
    mutating func droppedLargestUnacknowledged(on connection: ConnectionID) -> QueuedPush? {
        guard let pending = connections[connection]?.unacknowledged,
            let largest = pending.indices.max(by: {
                pending[$0].payload.readableBytes < pending[$1].payload.readableBytes
            })
        else { return nil }
        let push = connections[connection]!.unacknowledged.remove(at: largest)
        droppedTooLarge += 1
        unacknowledgedCount -= 1
        return push
    }

    /// Returns what `connection` did not acknowledge to its org's queue, in sequence order.
    ///
    /// - Returns: The connection that should now be sent deliveries, if pushes became
    ///   deliverable and another connection of the org is open.
    mutating func connectionClosed(_ connection: ConnectionID) -> ConnectionID? {
        guard let record = connections.removeValue(forKey: connection) else { return nil }
        orgs[record.org]?.openConnections.removeAll { $0 == connection }
        guard !record.unacknowledged.isEmpty, var queue = orgs[record.org] else { return nil }
        orgs[record.org] = nil  // keep the queue uniquely referenced while rebuilding it
        let merged = (Array(record.unacknowledged) + Array(queue.deliverable))
            .sorted { $0.sequenceNumber < $1.sequenceNumber }
        queue.deliverable = CircularBuffer(merged)
        orgs[record.org] = queue
        return queue.openConnections.last
    }

    /// How many pushes were sent on `connection` and are still waiting for an acknowledgement.
    func unacknowledgedCount(on connection: ConnectionID) -> Int {
        connections[connection]?.unacknowledged.count ?? 0
    }
}
