// SPDX-License-Identifier: Apache-2.0

/// What the server received from clients that was not a heartbeat or an acknowledgement: the
/// messages of their outboxes, in arrival order, for `GET /upstream` and the tests.
struct UpstreamLedger {
    struct Receipt {
        var sequenceNumber: Int
        var connection: PushLedger.ConnectionID
        var org: String
        var messageID: String
        var payload: String
        /// Microseconds since the server started.
        var receivedAt: Int
        /// Whether its row was in the outbox when it arrived (always true without a verifier).
        var wasCommitted: Bool
        /// The first receipt of its id: the message was taken now (a repeat is only acknowledged).
        var wasTaken: Bool
    }

    private(set) var receipts: [Receipt] = []
    private(set) var distinctIDs: Set<String> = []
    /// The ids taken, per host: two hosts may each send a message of one id (S-HOST-1).
    private var taken: Set<TakenID> = []
    /// Replies set through `POST /upstream/reply` for requests that have not arrived yet.
    private var cannedReplies: [String: String] = [:]
    /// Requests that arrived with no reply set, by id, with their host: answered when one is set.
    private var unanswered: [String: HostKey] = [:]

    private struct TakenID: Hashable {
        var host: HostKey
        var messageID: String
    }

    /// Whether `host` sent a message of this id before: a repeat is acknowledged, not taken.
    func wasTaken(_ messageID: String, from host: HostKey) -> Bool {
        taken.contains(TakenID(host: host, messageID: messageID))
    }
    /// Messages whose row the verifier could not see when they arrived.
    var uncommitted: Int { receipts.count { !$0.wasCommitted } }

    mutating func received(
        connection: PushLedger.ConnectionID, host: HostKey, messageID: String, payload: String, receivedAt: Int,
        wasCommitted: Bool
    ) {
        distinctIDs.insert(messageID)
        let wasTaken = taken.insert(TakenID(host: host, messageID: messageID)).inserted
        receipts.append(Receipt(
            sequenceNumber: receipts.count + 1, connection: connection, org: host.org, messageID: messageID,
            payload: payload, receivedAt: receivedAt, wasCommitted: wasCommitted, wasTaken: wasTaken))
    }

    /// The reply set for `messageID`, if any (taken: it is sent once); else remembers the request.
    mutating func takeReply(for messageID: String, host: HostKey) -> String? {
        if let reply = cannedReplies.removeValue(forKey: messageID) { return reply }
        unanswered[messageID] = host
        return nil
    }

    /// Sets a reply; returns the host to send it to now when the request already arrived.
    mutating func setReply(_ reply: String, for messageID: String) -> HostKey? {
        if let host = unanswered.removeValue(forKey: messageID) { return host }
        cannedReplies[messageID] = reply
        return nil
    }

    mutating func answered(_ messageID: String) {
        unanswered[messageID] = nil
    }
}
