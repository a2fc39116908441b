// SPDX-License-Identifier: Apache-2.0

import IntrapushSupport
import Logging
import NIOCore
import NIOWebSocket

/// All mutable state of a running server: queues, connections, counters and test switches.
///
/// Confined to the server's one event loop, where every channel handler also runs, so it needs
/// no locks. Every method must be called on that loop.
final class Hub {
    typealias ConnectionID = PushLedger.ConnectionID

    let configuration: DevServerConfiguration
    let logger: Logger
    /// The loop the hub is confined to, for scheduling the pushes of a steady run.
    let eventLoop: any EventLoop
    private let acknowledgementTemplate: AcknowledgementTemplate
    private let verifier: CommitVerifier?
    /// Checks that a message from a client is in its outbox table before it arrives.
    let upstreamVerifier: CommitVerifier?
    var upstream = UpstreamLedger()
    var upstreamSettings: UpstreamSettings
    let startedAt = NIODeadline.now()

    private(set) var ledger = PushLedger()
    private var connections: [ConnectionID: WebSocketConnectionHandler] = [:]
    private var nextConnectionID = 1
    private var counters = DevServerStats()
    private var heartbeatTimes = CircularBuffer<Int>(initialCapacity: Hub.keptHeartbeatTimes)
    private var connectionTimes = CircularBuffer<Int>()
    private var lastAcknowledgementTime: NIODeadline?
    /// Latencies of the current steady run's pushes.
    var latencies = AcknowledgementLatencies()
    /// The steady run in progress, if any; a new run replaces it.
    var steadyRun: SteadyRun?
    /// While set, upgrades are refused with this status whatever the token.
    private(set) var forcedRejectionStatus: Int?
    /// The `Retry-After` value sent with a forced 429 or 503, if any.
    private(set) var forcedRetryAfter: String?
    /// While set, nothing is sent and everything received is ignored, as from a dead peer.
    private(set) var isSilenced = false

    /// The close code of a connection replaced by a newer one of the same host (S-HOST-5).
    static let replacedCloseCode = 4409
    private static let keptHeartbeatTimes = 1000
    private static let keptConnectionTimes = 10_000

    /// The hello a connection must open with (`hello_text`, its `{token}` filled in); `nil`: none.
    let expectedHello: String?

    init(configuration: DevServerConfiguration, logger: Logger, eventLoop: any EventLoop) {
        self.configuration = configuration
        self.logger = logger
        self.eventLoop = eventLoop
        acknowledgementTemplate = AcknowledgementTemplate(configuration.acknowledgementTemplate)
        expectedHello = configuration.helloText.map {
            FrameTemplate($0, placeholder: "{token}").filled(with: .numberOrString(configuration.token))
        }
        verifier = configuration.verifyDatabasePath.map { CommitVerifier(path: $0, logger: logger) }
        upstreamVerifier = configuration.verifyDatabasePath.map { CommitVerifier(path: $0, table: "outbox", logger: logger) }
        upstreamSettings = UpstreamSettings(
            acknowledgementTemplate: configuration.upstreamAcknowledgementTemplate.isEmpty
                ? nil : configuration.upstreamAcknowledgementTemplate,
            echoes: configuration.echoesUpstream)
    }

    // MARK: Connections

    func admission(forURI uri: String, authorization: String? = nil, host: String? = nil) -> Admission {
        Admission(
            uri: uri, authorization: authorization, host: host, token: configuration.token,
            forcedRejectionStatus: forcedRejectionStatus)
    }

    func upgradeRejected(status: Int, uri: String) {
        counters.upgradesRejected += 1
        let route = ConnectRoute(path: RequestTarget(uri: uri).path)
        let reason = forcedRejectionStatus == nil ? "wrong token" : "rejection forced by /control/reject"
        logger.info(
            "rejected connection of client \(route?.client ?? "?") for org \(route?.org ?? "?") with \(status): \(reason)")
    }

    func connectionOpened(_ handler: WebSocketConnectionHandler, route: ConnectRoute) -> ConnectionID {
        let id = nextConnectionID
        nextConnectionID += 1
        connections[id] = handler
        let host = route.host ?? HostKey.unnamed
        let replaced = ledger.connectionOpened(id, org: route.org, host: host)
        counters.connectionsTotal += 1
        connectionTimes.append(microsecondsSinceStart(at: .now()))
        if connectionTimes.count > Self.keptConnectionTimes {
            connectionTimes.removeFirst()
        }
        logger.info("connection \(id) opened by client \(route.client) for org \(route.org)\(route.host.map { ", host \($0)" } ?? "")")
        if let replaced, let older = connections[replaced] {
            // Two machines with one identity (a cloned image) replace each other in turn: said
            // once per replacement, so the log shows it.
            logger.warning(
                "connection \(replaced) of host \(host) (org \(route.org)) replaced by connection \(id); closing it with \(Self.replacedCloseCode)")
            older.close(
                code: WebSocketErrorCode(codeNumber: Self.replacedCloseCode),
                reason: "replaced by a newer connection of this host", awaitingReply: true, drain: false)
        }
        return id
    }

    func connectionClosed(_ id: ConnectionID) {
        guard connections.removeValue(forKey: id) != nil else { return }
        let returned = ledger.unacknowledgedCount(on: id)
        let nextTarget = ledger.connectionClosed(id)
        logger.info("connection \(id) closed; \(returned) unacknowledged pushes queued again")
        if let nextTarget {
            connections[nextTarget]?.deliverPending()
        }
    }

    /// The next push to send on `id`, unless silenced or another connection is the target.
    func nextDelivery(to id: ConnectionID) -> QueuedPush? {
        isSilenced ? nil : ledger.nextDelivery(to: id)
    }

    // MARK: Frames from clients

    /// What to send back for a text frame from a client, or what to do.
    enum TextAnswer: Equatable {
        case none
        /// A heartbeat, sent back when echoing is on.
        case echo
        /// The acknowledgement of a message from the client's outbox.
        case acknowledgement(String)
        /// The connection's first frame is its hello: deliveries may start.
        case helloAccepted
        /// The connection's first frame is not the hello: it is closed with 1008.
        case helloRefused
    }

    /// Handles a text frame, told apart as the protocol says: the hello (by its place, the first
    /// frame, when the clients send one), a heartbeat (its exact text), an acknowledgement of a
    /// push (the form of `ack_text`), a message from the client's outbox (a JSON object with a
    /// string `upstream_id_field`). Anything else acknowledges nothing; it is counted and logged.
    func textReceived(_ text: String, on id: ConnectionID, isFirst: Bool) -> TextAnswer {
        let now = NIODeadline.now()
        if isFirst, let expectedHello {
            guard text == expectedHello else {
                counters.hellosRefused += 1
                logger.warning("connection \(id): the first frame is not the hello the clients send; closing with 1008")
                return .helloRefused
            }
            counters.hellos += 1
            logger.debug("hello on connection \(id)")
            return .helloAccepted
        }
        guard text != configuration.heartbeatText else {
            heartbeatReceived(on: id, at: now)
            return configuration.echoesHeartbeats ? .echo : .none
        }
        switch acknowledgementTemplate.read(text) {
        case .withoutID:
            acknowledgementReceived(carrying: nil, on: id, at: now)
            return .none
        case .withID(let messageID):
            acknowledgementReceived(carrying: messageID, on: id, at: now)
            return .none
        case .notAnAcknowledgement:
            break
        }
        if let messageID = MessageIDProbe.stringMember(configuration.upstreamIDField, in: text) {
            return upstreamReceived(text, messageID: messageID, on: id).map(TextAnswer.acknowledgement) ?? .none
        }
        counters.ackMismatches += 1
        logger.warning(
            "connection \(id): a text frame of \(text.utf8.count) bytes that is neither an acknowledgement, a heartbeat nor a message acknowledges nothing")
        return .none
    }

    private func heartbeatReceived(on id: ConnectionID, at now: NIODeadline) {
        counters.heartbeats += 1
        heartbeatTimes.append(Int((now - startedAt).nanoseconds / 1_000_000))
        if heartbeatTimes.count > Self.keptHeartbeatTimes {
            heartbeatTimes.removeFirst()
        }
        logger.debug("heartbeat on connection \(id)")
    }

    func pingReceived(on id: ConnectionID) {
        counters.pings += 1
        logger.debug("ping on connection \(id)")
    }

    /// Records the client's close code; 1009 drops the push the client could not take.
    func closeReceived(code: Int, on id: ConnectionID) {
        counters.closeCodes[String(code), default: 0] += 1
        counters.lastCloseCode = code
        logger.info("connection \(id) closed by the client with \(code)")
        guard code == Int(UInt16(webSocketErrorCode: .messageTooLarge)),
            let dropped = ledger.droppedLargestUnacknowledged(on: id)
        else { return }
        logger.warning(
            "dropped push \(dropped.sequenceNumber) (\(dropped.payload.readableBytes) bytes): too large for the client")
    }

    private func acknowledgementReceived(carrying carriedID: String?, on id: ConnectionID, at time: NIODeadline) {
        counters.acks += 1
        lastAcknowledgementTime = time
        switch ledger.acknowledgementReceived(on: id, messageID: carriedID) {
        case .matched(let push):
            logger.debug("push \(push.sequenceNumber) acknowledged on connection \(id)")
            timeAcknowledgement(of: push, at: time)
            verifyCommitted(push)
        case .mismatched(let push, let receivedID):
            counters.ackMismatches += 1
            logger.warning(
                "acknowledgement for \(receivedID) on connection \(id), but push \(push.sequenceNumber) has id \(push.messageID ?? "(none)")")
            timeAcknowledgement(of: push, at: time)
            verifyCommitted(push)
        case .unexpected:
            counters.ackMismatches += 1
            logger.warning("acknowledgement on connection \(id) with no push waiting for one")
        }
    }

    private func timeAcknowledgement(of push: QueuedPush, at time: NIODeadline) {
        if push.isTimed {
            latencies.pushAcknowledged(sequenceNumber: push.sequenceNumber, at: time)
        }
    }

    /// Records when the timed pushes among those just written are flushed.
    func timedPushesFlushed(_ sequenceNumbers: [Int], at time: NIODeadline) {
        for sequenceNumber in sequenceNumbers {
            latencies.pushFlushed(sequenceNumber: sequenceNumber, at: time)
        }
    }

    /// Microseconds from the server's start to `time`, the unit of every `_us` statistic.
    func microsecondsSinceStart(at time: NIODeadline) -> Int {
        Int((time - startedAt).nanoseconds / 1_000)
    }

    private func verifyCommitted(_ push: QueuedPush) {
        guard let verifier, let messageID = push.messageID, !verifier.isCommitted(messageID: messageID) else {
            return
        }
        counters.acksBeforeCommit += 1
        logger.error("push \(push.sequenceNumber) (id \(messageID)) acknowledged before its row was visible")
    }
}

// MARK: - Queueing, control and statistics

extension Hub {
    /// Queues one push for every host of `org`, or for `host` alone, and starts delivering it;
    /// returns its sequence number.
    func queue(payload: ByteBuffer, isBinary: Bool, org: String, host: String? = nil) -> Int {
        let messageID = isBinary ? nil : MessageIDProbe.messageID(in: Array(payload.readableBytesView), field: configuration.idField)
        let sequenceNumber = ledger.queued(payload: payload, isBinary: isBinary, messageID: messageID, org: org, host: host)
        let recipient = host.map { "host \($0) of org \(org)" } ?? "org \(org)"
        logger.info(
            "queued push \(sequenceNumber) for \(recipient) (\(payload.readableBytes) bytes, id \(messageID ?? "(none)"))")
        if let host {
            ledger.deliveryTarget(of: HostKey(org: org, host: host)).map { connections[$0]?.deliverPending() }
        } else {
            deliverPending(to: org)
        }
        return sequenceNumber
    }

    /// Queues `count` generated pushes for `org` and starts delivering them.
    ///
    /// - Returns: Their sequence numbers, and when they were all queued (before any was sent).
    func queueBurst(
        count: Int, size: Int, prefix: String, org: String, allocator: ByteBufferAllocator
    ) -> (sequenceNumbers: Range<Int>, queuedAt: NIODeadline) {
        let range = queueGenerated(count: count, size: size, prefix: prefix, org: org, allocator: allocator)
        let queuedAt = NIODeadline.now()
        logger.info("queued a burst of \(count) pushes for org \(org), \(range)")
        deliverPending(to: org)
        return (range, queuedAt)
    }

    /// Queues generated pushes with ids `<prefix><seq>` without delivering them yet.
    func queueGenerated(
        count: Int, size: Int, prefix: String, org: String, isTimed: Bool = false, allocator: ByteBufferAllocator
    ) -> Range<Int> {
        let first = ledger.nextSequenceNumber
        let generator = BurstGenerator(prefix: prefix, size: size)
        for (payload, messageID) in generator.makePayloads(firstSequenceNumber: first, count: count, allocator: allocator) {
            _ = ledger.queued(payload: payload, isBinary: false, messageID: messageID, org: org, isTimed: isTimed)
        }
        return first..<(first + count)
    }

    func deliverPending(to org: String) {
        for target in ledger.deliveryTargets(of: org) {
            connections[target]?.deliverPending()
        }
    }

    /// Closes every open connection with `code`: unless `atOnce`, each first stops sending and
    /// waits (at most `closeDrainTimeout`) for the acknowledgements of what it sent, since the
    /// client acknowledges nothing after a server's close. Returns how many, and when all are closed.
    func closeConnections(
        code: WebSocketErrorCode, reason: String = "", awaitingReply: Bool = true, atOnce: Bool = false
    ) -> (count: Int, closed: EventLoopFuture<Void>) {
        let handlers = Array(connections.values)
        logger.info(
            "closing \(handlers.count) connections with \(UInt16(webSocketErrorCode: code))\(reason.isEmpty ? "" : " \"\(reason)\"")\(atOnce ? " at once" : " once what they were sent is acknowledged")")
        let closed = handlers.map { $0.close(code: code, reason: reason, awaitingReply: awaitingReply, drain: !atOnce) }
        return (handlers.count, EventLoopFuture.andAllComplete(closed, on: eventLoop))
    }

    /// Whether `id` was sent pushes it has not acknowledged yet.
    func awaitsAcknowledgements(on id: ConnectionID) -> Bool {
        ledger.unacknowledgedCount(on: id) > 0
    }

    /// A client was silent for `idleTimeout`: its connection is dropped.
    func connectionIdle(_ id: ConnectionID) {
        counters.idleDrops += 1
        logger.warning("connection \(id): nothing received for \(configuration.idleTimeout.map { "\($0)" } ?? "?"); dropping it")
    }

    /// Closes every connection's TCP stream without a close frame; returns how many.
    func dropConnections() -> Int {
        let handlers = Array(connections.values)
        logger.info("dropping \(handlers.count) connections without a close frame")
        for handler in handlers {
            handler.drop()
        }
        return handlers.count
    }

    func setSilenced(_ silenced: Bool) {
        isSilenced = silenced
        logger.info(silenced ? "silenced: ignoring clients" : "no longer silenced")
        guard !silenced else { return }
        for handler in Array(connections.values) {
            handler.deliverPending()
        }
    }

    func setForcedRejection(status: Int?, retryAfter: String? = nil) {
        forcedRejectionStatus = status
        forcedRetryAfter = retryAfter
        logger.info(status.map { "rejecting every upgrade with \($0)" } ?? "accepting upgrades again")
    }

    var stats: DevServerStats {
        var stats = counters
        stats.connectionsOpen = connections.count
        stats.heartbeatTimesMilliseconds = Array(heartbeatTimes)
        stats.pushesQueued = ledger.pushesQueued
        stats.deliveries = ledger.deliveries
        stats.acked = ledger.acknowledged
        stats.unacked = ledger.unacknowledgedCount
        stats.droppedTooLarge = ledger.droppedTooLarge
        stats.startedMonotonicMicroseconds = Int(startedAt.uptimeNanoseconds / 1_000)
        stats.lastAckMicroseconds = lastAcknowledgementTime.map { microsecondsSinceStart(at: $0) }
        stats.connectionTimesMicroseconds = Array(connectionTimes)
        stats.ackLatencyMicroseconds = latencies.summary
        stats.hosts = ledger.hostStatistics.sorted { $0.key < $1.key }.map { key, figures in
            DevServerHostStats(
                org: key.org, host: key.host, connected: figures.isConnected, connections: figures.connections,
                replaced: figures.replaced, deliveries: figures.deliveries, acked: figures.acknowledged, unacked: figures.unacknowledged,
                queued: figures.deliverable)
        }
        return stats
    }
}
