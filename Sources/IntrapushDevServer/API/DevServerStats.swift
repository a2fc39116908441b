// SPDX-License-Identifier: Apache-2.0

/// What a ``DevServer`` has seen, as `GET /stats` reports it.
package struct DevServerStats: Codable, Sendable, Equatable {
    /// WebSocket connections accepted since the start.
    package var connectionsTotal: Int
    package var connectionsOpen: Int
    /// Upgrade requests answered with 401 or 403.
    package var upgradesRejected: Int
    package var heartbeats: Int
    /// When the last (at most 1000) heartbeats arrived, in milliseconds since the server started.
    package var heartbeatTimesMilliseconds: [Int]
    package var pings: Int
    package var pushesQueued: Int
    /// Frames sent carrying a push, redeliveries included.
    package var deliveries: Int
    /// Acknowledgement frames received.
    package var acks: Int
    /// Pushes acknowledged, each host's copy once (a push for an org of three hosts counts three).
    package var acked: Int
    /// Copies still waiting for an acknowledgement, over all hosts, and the pushes of orgs that
    /// no host connected to yet.
    package var unacked: Int
    /// Acknowledgements naming another id than their push's or with nothing to acknowledge, and
    /// text frames that are neither an acknowledgement, a heartbeat, a hello nor a message
    /// (which acknowledge nothing).
    package var ackMismatches: Int
    /// Connections that opened with the expected hello (`--hello-text`), and those that did not
    /// (closed with 1008).
    package var hellos: Int
    package var hellosRefused: Int
    /// Connections dropped after `--idle-timeout` without a frame or a ping.
    package var idleDrops: Int
    /// Acknowledgements whose message id was not yet in the `--verify-database` file.
    package var acksBeforeCommit: Int
    /// Pushes dropped because the client closed with 1009 (message too big).
    package var droppedTooLarge: Int
    /// How often clients closed with each close code, keyed by the code in decimal.
    package var closeCodes: [String: Int]
    package var lastCloseCode: Int?
    /// When the server started, in microseconds of the system's monotonic clock (`CLOCK_MONOTONIC`,
    /// as Python's `time.monotonic_ns() // 1000`); the other `_us` times count from here.
    package var startedMonotonicMicroseconds: Int
    /// When the latest acknowledgement was read, in microseconds since the start.
    package var lastAckMicroseconds: Int?
    /// When each WebSocket connection was opened (upgraded), in microseconds since the start;
    /// the latest 10,000.
    package var connectionTimesMicroseconds: [Int]
    /// Flush→acknowledgement latencies of the pushes of the latest steady run (`POST /push/steady`).
    package var ackLatencyMicroseconds: LatencySummary
    /// Each host the server heard of, by org and `Intrapush-Host` (protocol §10); absent from
    /// the statistics of servers before it.
    package var hosts: [DevServerHostStats]?

    package init(
        connectionsTotal: Int = 0, connectionsOpen: Int = 0, upgradesRejected: Int = 0,
        heartbeats: Int = 0, heartbeatTimesMilliseconds: [Int] = [], pings: Int = 0,
        pushesQueued: Int = 0, deliveries: Int = 0, acks: Int = 0, acked: Int = 0, unacked: Int = 0,
        ackMismatches: Int = 0, hellos: Int = 0, hellosRefused: Int = 0, idleDrops: Int = 0,
        acksBeforeCommit: Int = 0, droppedTooLarge: Int = 0,
        closeCodes: [String: Int] = [:], lastCloseCode: Int? = nil, startedMonotonicMicroseconds: Int = 0,
        lastAckMicroseconds: Int? = nil, connectionTimesMicroseconds: [Int] = [],
        ackLatencyMicroseconds: LatencySummary = LatencySummary()
    ) {
        self.connectionsTotal = connectionsTotal
        self.connectionsOpen = connectionsOpen
        self.upgradesRejected = upgradesRejected
        self.heartbeats = heartbeats
        self.heartbeatTimesMilliseconds = heartbeatTimesMilliseconds
        self.pings = pings
        self.pushesQueued = pushesQueued
        self.deliveries = deliveries
        self.acks = acks
        self.acked = acked
        self.unacked = unacked
        self.ackMismatches = ackMismatches
        self.hellos = hellos
        self.hellosRefused = hellosRefused
        self.idleDrops = idleDrops
        self.acksBeforeCommit = acksBeforeCommit
        self.droppedTooLarge = droppedTooLarge
        self.closeCodes = closeCodes
        self.lastCloseCode = lastCloseCode
        self.startedMonotonicMicroseconds = startedMonotonicMicroseconds
        self.lastAckMicroseconds = lastAckMicroseconds
        self.connectionTimesMicroseconds = connectionTimesMicroseconds
        self.ackLatencyMicroseconds = ackLatencyMicroseconds
        self.hosts = []
    }

    enum CodingKeys: String, CodingKey {
        case connectionsTotal = "connections_total"
        case connectionsOpen = "connections_open"
        case upgradesRejected = "upgrades_rejected"
        case heartbeats
        case heartbeatTimesMilliseconds = "heartbeat_times_ms"
        case pings
        case pushesQueued = "pushes_queued"
        case deliveries, acks, acked, unacked
        case ackMismatches = "ack_mismatches"
        case hellos
        case hellosRefused = "hellos_refused"
        case idleDrops = "idle_drops"
        case acksBeforeCommit = "acks_before_commit"
        case droppedTooLarge = "dropped_too_large"
        case closeCodes = "close_codes"
        case lastCloseCode = "last_close_code"
        case startedMonotonicMicroseconds = "started_monotonic_us"
        case lastAckMicroseconds = "last_ack_us"
        case connectionTimesMicroseconds = "connection_times_us"
        case ackLatencyMicroseconds = "ack_latency_us"
        case hosts
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(connectionsTotal, forKey: .connectionsTotal)
        try container.encode(connectionsOpen, forKey: .connectionsOpen)
        try container.encode(upgradesRejected, forKey: .upgradesRejected)
        try container.encode(heartbeats, forKey: .heartbeats)
        try container.encode(heartbeatTimesMilliseconds, forKey: .heartbeatTimesMilliseconds)
        try container.encode(pings, forKey: .pings)
        try container.encode(pushesQueued, forKey: .pushesQueued)
        try container.encode(deliveries, forKey: .deliveries)
        try container.encode(acks, forKey: .acks)
        try container.encode(acked, forKey: .acked)
        try container.encode(unacked, forKey: .unacked)
        try container.encode(ackMismatches, forKey: .ackMismatches)
        try container.encode(hellos, forKey: .hellos)
        try container.encode(hellosRefused, forKey: .hellosRefused)
        try container.encode(idleDrops, forKey: .idleDrops)
        try container.encode(acksBeforeCommit, forKey: .acksBeforeCommit)
        try container.encode(droppedTooLarge, forKey: .droppedTooLarge)
        try container.encode(closeCodes, forKey: .closeCodes)
        // `null` before any close, so the key is never left out.
        try container.encode(lastCloseCode, forKey: .lastCloseCode)
        try container.encode(startedMonotonicMicroseconds, forKey: .startedMonotonicMicroseconds)
        try container.encode(lastAckMicroseconds, forKey: .lastAckMicroseconds)
        try container.encode(connectionTimesMicroseconds, forKey: .connectionTimesMicroseconds)
        try container.encode(ackLatencyMicroseconds, forKey: .ackLatencyMicroseconds)
        try container.encode(hosts ?? [], forKey: .hosts)
    }
}
