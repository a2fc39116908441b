// SPDX-License-Identifier: Apache-2.0

import NIOCore

/// Which pushes wait for which host, which connection was sent what, and what was acknowledged.
///
/// Pure bookkeeping with no I/O, so the delivery rules (protocol §10) can be tested without sockets:
/// - each host of an org (`Intrapush-Host`; a client without it is the org's one unnamed host)
///   has its own queue of deliverable pushes, in sequence order;
/// - a push for the org goes to every host of it, and is kept (`retainedLimit` of them) for named
///   hosts that connect for the first time later; a push for one host goes to that host alone;
/// - a named host has one connection: a newer one replaces it (the hub closes the older with
///   4409); of the unnamed host's connections only the newest is sent deliveries;
/// - the k-th acknowledgement on a connection acknowledges the k-th push sent on it;
/// - when a connection ends, what it was sent but did not acknowledge becomes deliverable
///   again for its host, merged back in sequence order.
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

    private struct HostQueue {
        var deliverable = CircularBuffer<QueuedPush>()
        /// Oldest first; the last one is the delivery target.
        var openConnections: [ConnectionID] = []
        var statistics = HostStatistics()
    }

    private struct OrgRecord {
        /// Its hosts, in the order the server first heard of them.
        var hosts: [String] = []
        /// The org's latest pushes, for a host that connects for the first time.
        var retained = CircularBuffer<QueuedPush>()
        /// The newest of `retained` that no host was given yet: they wait for the first one.
        var unclaimed = 0
    }

    private struct ConnectionRecord {
        var key: HostKey
        var unacknowledged = CircularBuffer<QueuedPush>()
    }

    /// How many of an org's pushes are kept for hosts that connect for the first time later.
    let retainedLimit: Int
    private var hosts: [HostKey: HostQueue] = [:]
    private var orgs: [String: OrgRecord] = [:]
    private var connections: [ConnectionID: ConnectionRecord] = [:]

    /// The number the next queued push will get.
    private(set) var nextSequenceNumber = 1
    private(set) var pushesQueued = 0
    private(set) var deliveries = 0
    /// Copies acknowledged (a push for an org of three hosts counts three once all acknowledged).
    private(set) var acknowledged = 0
    private(set) var droppedTooLarge = 0
    /// Copies neither acknowledged nor dropped, over all hosts, and the pushes of orgs with no host yet.
    private(set) var unacknowledgedCount = 0

    init(retainedLimit: Int = 10_000) {
        self.retainedLimit = retainedLimit
    }

    /// Queues a push for every host of `org`, or for `host` of it alone; returns its sequence number.
    mutating func queued(
        payload: ByteBuffer, isBinary: Bool, messageID: String?, org: String, host: String? = nil, isTimed: Bool = false
    ) -> Int {
        let sequenceNumber = nextSequenceNumber
        nextSequenceNumber += 1
        pushesQueued += 1
        let push = QueuedPush(
            sequenceNumber: sequenceNumber, messageID: messageID, payload: payload, isBinary: isBinary,
            isTimed: isTimed)
        if let host {
            append(push, to: HostKey(org: org, host: host))
            return sequenceNumber
        }
        var record = orgs.removeValue(forKey: org) ?? OrgRecord()
        for host in record.hosts {
            append(push, to: HostKey(org: org, host: host))
        }
        if record.hosts.isEmpty {
            record.unclaimed += 1
            unacknowledgedCount += 1
        }
        record.retained.append(push)
        if record.retained.count > retainedLimit {
            record.retained.removeFirst()
            if record.unclaimed > record.retained.count {
                record.unclaimed -= 1
                unacknowledgedCount -= 1
            }
        }
        orgs[org] = record
        return sequenceNumber
    }

    private mutating func append(_ push: QueuedPush, to key: HostKey) {
        addHostIfNew(key)
        hosts[key]!.deliverable.append(push)
        unacknowledgedCount += 1
    }

    /// Makes `key` a host of its org. A new named host is given the org's retained pushes; the
    /// unnamed one only those no host was given yet, as a server of protocol 1.1 did: clients
    /// without an identity cannot be told from the hosts that took the others.
    private mutating func addHostIfNew(_ key: HostKey) {
        guard hosts[key] == nil else { return }
        var record = orgs.removeValue(forKey: key.org) ?? OrgRecord()
        var queue = HostQueue()
        if key.isNamed {
            queue.deliverable = record.retained
            unacknowledgedCount += record.retained.count - record.unclaimed
        } else {
            queue.deliverable = CircularBuffer(record.retained.suffix(record.unclaimed))
        }
        record.unclaimed = 0
        record.hosts.append(key.host)
        orgs[key.org] = record
        hosts[key] = queue
    }

    /// The connection of each host of `org` that deliveries go to.
    func deliveryTargets(of org: String) -> [ConnectionID] {
        (orgs[org]?.hosts ?? []).compactMap { hosts[HostKey(org: org, host: $0)]?.openConnections.last }
    }

    /// The connection that deliveries for one host go to, if one is open.
    func deliveryTarget(of key: HostKey) -> ConnectionID? {
        hosts[key]?.openConnections.last
    }

    /// The host a connection serves.
    func host(of connection: ConnectionID) -> HostKey? {
        connections[connection]?.key
    }

    /// Records a new connection of a host; being the newest, it becomes its delivery target.
    ///
    /// - Returns: The connection it replaces: a named host's older connection, which no longer
    ///   counts (what it did not acknowledge is deliverable again) and is to be closed with 4409.
    @discardableResult
    mutating func connectionOpened(_ connection: ConnectionID, org: String, host: String = HostKey.unnamed) -> ConnectionID? {
        let key = HostKey(org: org, host: host)
        addHostIfNew(key)
        let replaced = key.isNamed ? hosts[key]!.openConnections.last : nil
        if let replaced {
            _ = connectionClosed(replaced)
            hosts[key]!.statistics.replaced += 1
        }
        connections[connection] = ConnectionRecord(key: key)
        hosts[key]!.openConnections.append(connection)
        hosts[key]!.statistics.connections += 1
        return replaced
    }

    /// Takes the next deliverable push for `connection` and records it as sent on it.
    ///
    /// Returns `nil` when nothing is deliverable or another connection is the delivery target.
    mutating func nextDelivery(to connection: ConnectionID) -> QueuedPush? {
        guard let key = connections[connection]?.key,
            hosts[key]?.openConnections.last == connection,
            let push = hosts[key]?.deliverable.popFirst()
        else { return nil }
        connections[connection]?.unacknowledged.append(push)
        deliveries += 1
        hosts[key]?.statistics.deliveries += 1
        return push
    }

    /// Matches an acknowledgement to the oldest push sent on `connection` and not yet acknowledged.
    ///
    /// `messageID` is the id the acknowledgement carried, `nil` when it carries none; an empty id
    /// stands for a push without one.
    mutating func acknowledgementReceived(on connection: ConnectionID, messageID: String?) -> Acknowledgement {
        guard let key = connections[connection]?.key,
            let push = connections[connection]?.unacknowledged.popFirst()
        else { return .unexpected }
        acknowledged += 1
        unacknowledgedCount -= 1
        hosts[key]?.statistics.acknowledged += 1
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

    /// Returns what `connection` did not acknowledge to its host's queue, in sequence order.
    ///
    /// - Returns: The connection that should now be sent deliveries, if pushes became
    ///   deliverable and another connection of the host is open.
    mutating func connectionClosed(_ connection: ConnectionID) -> ConnectionID? {
        guard let record = connections.removeValue(forKey: connection) else { return nil }
        hosts[record.key]?.openConnections.removeAll { $0 == connection }
        guard !record.unacknowledged.isEmpty, var queue = hosts[record.key] else { return nil }
        hosts[record.key] = nil  // keep the queue uniquely referenced while rebuilding it
        let merged = (Array(record.unacknowledged) + Array(queue.deliverable))
            .sorted { $0.sequenceNumber < $1.sequenceNumber }
        queue.deliverable = CircularBuffer(merged)
        hosts[record.key] = queue
        return queue.openConnections.last
    }

    /// How many pushes were sent on `connection` and are still waiting for an acknowledgement.
    func unacknowledgedCount(on connection: ConnectionID) -> Int {
        connections[connection]?.unacknowledged.count ?? 0
    }

    /// Each host's figures, in the order the server first heard of them, org by org.
    var hostStatistics: [HostKey: HostStatistics] {
        var figures: [HostKey: HostStatistics] = [:]
        for (key, queue) in hosts {
            var statistics = queue.statistics
            statistics.deliverable = queue.deliverable.count
            statistics.isConnected = !queue.openConnections.isEmpty
            statistics.unacknowledged = queue.openConnections.reduce(0) { $0 + unacknowledgedCount(on: $1) }
            figures[key] = statistics
        }
        return figures
    }
}

/// A host of an org, as the server tells hosts apart: the `Intrapush-Host` of its upgrade.
struct HostKey: Hashable, Sendable, Comparable {
    /// Clients without `Intrapush-Host` (protocol 1.1 and earlier): one host of the org.
    static let unnamed = ""

    var org: String
    var host: String

    var isNamed: Bool { host != Self.unnamed }

    static func < (lhs: HostKey, rhs: HostKey) -> Bool {
        (lhs.org, lhs.host) < (rhs.org, rhs.host)
    }
}

/// What `GET /stats` says of one host.
struct HostStatistics: Equatable, Sendable {
    /// Connections it opened, and how many of them replaced an open one (S-HOST-5).
    var connections = 0
    var replaced = 0
    /// Pushes sent to it, sent again included.
    var deliveries = 0
    var acknowledged = 0
    var deliverable = 0
    var unacknowledged = 0
    var isConnected = false
}
