// SPDX-License-Identifier: Apache-2.0

import IntrapushStore

/// Which messages to the server go out when, with no I/O: the window, the queue order, the
/// acknowledgements, the requests that wait for replies, what a reconnect sends again.
///
/// The database is the queue: the machine holds only what is in flight on the current
/// connection, and asks for the next rows after the last one it loaded. So a message queued by
/// any writer, before or after a crash, goes out in `id` order, and after a reconnect everything
/// unacknowledged is loaded (and sent) again from the start. Events are named in the past tense;
/// the returned `Action`s are performed by `OutboxCoordinator`.
struct OutboxStateMachine {
    /// Read the next undelivered rows after row `after`, at most `limit`, for connection `generation`.
    struct Load: Equatable {
        var after: Int64
        var limit: Int
        var generation: Int
    }

    /// What `OutboxCoordinator` does; each event answers with a list of them, in order.
    enum Action: Equatable {
        /// Write these frames, in order. If they cannot go, nothing after them is done.
        case send([OutboxEntry])
        /// Once written: record as sent (one attempt more).
        case recordSent([Int64])
        /// Record as delivered (acknowledged, or written when the server does not acknowledge).
        case recordDelivered([Int64])
        /// Read the next rows.
        case load(Load)
    }

    private struct Open {
        var window: Int
        /// The server acknowledges (`upstream_ack_text` set).
        var acknowledges: Bool
        /// Written on this connection and not yet acknowledged, in queue order.
        var inFlight: [(rowID: Int64, messageID: String)] = []
        /// The last row loaded on this connection.
        var cursor: Int64 = 0
        var isLoading = false
        /// Something may wait after `cursor`: a message was queued, or the last load was full.
        var mayHaveMore = true
        /// Expired while in flight here: a late acknowledgement is still one, not a push.
        var expiredInFlight: Set<String> = []
    }

    private var open: Open?
    /// Bumped by every connection, so that a load finishing after its connection closed is dropped.
    private(set) var generation = 0
    /// Requests waiting for a reply, by message id: what a server frame is matched against.
    private(set) var awaitedReplies: [String: Int64] = [:]
    /// Requests answered lately, oldest first: the server delivers a reply again when our
    /// acknowledgement was lost, and it is still a reply (acknowledged, not stored twice).
    private var recentlyAnswered: [(messageID: String, rowID: Int64)] = []
    static let recentlyAnsweredKept = 1024

    init(awaiting: [AwaitedReply] = []) {
        for request in awaiting { awaitedReplies[request.messageID] = request.rowID }
    }

    var isConnected: Bool { open != nil }
    var inFlightCount: Int { open?.inFlight.count ?? 0 }

    /// The connection is open and `hello_text` is out: send what waits, from the first row.
    mutating func connectionOpened(window: Int, acknowledges: Bool) -> [Action] {
        assert(open == nil, "a connection opened while another was attached")
        generation += 1
        open = Open(window: window, acknowledges: acknowledges)
        return loadIfRoom()
    }

    /// The connection ended (or could not take a frame): what was in flight goes again, from
    /// the database, on the next one.
    mutating func connectionClosed() -> [Action] {
        open = nil
        return []
    }

    /// Rows were queued by anyone: load them once there is room.
    mutating func messagesQueued() -> [Action] {
        open?.mayHaveMore = true
        return loadIfRoom()
    }

    /// The rows asked for arrived: send them.
    mutating func rowsLoaded(_ entries: [OutboxEntry], limit: Int, generation loadGeneration: Int) -> [Action] {
        guard loadGeneration == generation, var state = open else { return [] }
        assert(state.isLoading, "rows arrived with no load under way")
        state.isLoading = false
        // A full batch may have more behind it; a short one read to the end, unless a message
        // was queued while the load ran (then `mayHaveMore` is set again already).
        if entries.count == limit { state.mayHaveMore = true }
        var sent: [Int64] = []
        var delivered: [Int64] = []
        for entry in entries {
            if entry.kind == .request { awaitedReplies[entry.messageID] = entry.rowID }
            if state.acknowledges {
                state.inFlight.append((entry.rowID, entry.messageID))
                sent.append(entry.rowID)
            } else {
                delivered.append(entry.rowID)
            }
        }
        state.cursor = entries.last?.rowID ?? state.cursor
        open = state
        var actions: [Action] = entries.isEmpty ? [] : [.send(entries)]
        if !sent.isEmpty { actions.append(.recordSent(sent)) }
        if !delivered.isEmpty { actions.append(.recordDelivered(delivered)) }
        return actions + loadIfRoom()
    }

    /// Whether a frame equal to `upstream_ack_text` carrying `messageID` acknowledges a message
    /// of ours (else the frame is a push like any other): one in flight, or one that expired
    /// while in flight.
    func isAcknowledgement(_ messageID: String) -> Bool {
        guard let state = open else { return false }
        return state.inFlight.contains { $0.messageID == messageID } || state.expiredInFlight.contains(messageID)
    }

    /// A frame equal to `upstream_ack_text` carried `messageID`.
    mutating func acknowledgementReceived(_ messageID: String) -> [Action] {
        guard var state = open, let index = state.inFlight.firstIndex(where: { $0.messageID == messageID }) else {
            return []
        }
        let rowID = state.inFlight.remove(at: index).rowID
        open = state
        return [.recordDelivered([rowID])] + loadIfRoom()
    }

    /// The request a frame answers, when it names one that waits.
    func requestAnswered(by inReplyTo: String) -> Int64? {
        awaitedReplies[inReplyTo] ?? recentlyAnswered.last { $0.messageID == inReplyTo }?.rowID
    }

    /// A reply was committed to its request's row: the request is answered, and delivered.
    mutating func replyCommitted(requestID messageID: String) -> [Action] {
        if let rowID = awaitedReplies.removeValue(forKey: messageID) {
            recentlyAnswered.append((messageID, rowID))
            if recentlyAnswered.count > Self.recentlyAnsweredKept { recentlyAnswered.removeFirst() }
        }
        guard var state = open, let index = state.inFlight.firstIndex(where: { $0.messageID == messageID }) else {
            return []
        }
        state.inFlight.remove(at: index)
        open = state
        return loadIfRoom()
    }

    /// These rows passed their deadline and were marked expired: never sent again.
    mutating func rowsExpired(_ rows: [AwaitedReply]) -> [Action] {
        for row in rows { awaitedReplies[row.messageID] = nil }
        guard var state = open else { return [] }
        let expired = Set(rows.map(\.rowID))
        for entry in state.inFlight where expired.contains(entry.rowID) {
            state.expiredInFlight.insert(entry.messageID)
        }
        state.inFlight.removeAll { expired.contains($0.rowID) }
        open = state
        return loadIfRoom()
    }

    private mutating func loadIfRoom() -> [Action] {
        guard var state = open, !state.isLoading, state.mayHaveMore else { return [] }
        let room = state.window - state.inFlight.count
        guard room > 0 else { return [] }
        state.isLoading = true
        state.mayHaveMore = false
        open = state
        return [.load(Load(after: state.cursor, limit: room, generation: generation))]
    }
}
