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
    /// Replies set through `POST /upstream/reply` for requests that have not arrived yet.
    private var cannedReplies: [String: String] = [:]
    /// Requests that arrived with no reply set, by id, with their org: answered when one is set.
    private var unanswered: [String: String] = [:]
    /// Messages whose row the verifier could not see when they arrived.
    var uncommitted: Int { receipts.count { !$0.wasCommitted } }

    mutating func received(
        connection: PushLedger.ConnectionID, org: String, messageID: String, payload: String, receivedAt: Int,
        wasCommitted: Bool
    ) {
        let wasTaken = distinctIDs.insert(messageID).inserted
        receipts.append(Receipt(
            sequenceNumber: receipts.count + 1, connection: connection, org: org, messageID: messageID,
            payload: payload, receivedAt: receivedAt, wasCommitted: wasCommitted, wasTaken: wasTaken))
    }

    /// The reply set for `messageID`, if any (taken: it is sent once); else remembers the request.
    mutating func takeReply(for messageID: String, org: String) -> String? {
        if let reply = cannedReplies.removeValue(forKey: messageID) { return reply }
        unanswered[messageID] = org
        return nil
    }

    /// Sets a reply; returns the org to send it to now when the request already arrived.
    mutating func setReply(_ reply: String, for messageID: String) -> String? {
        if let org = unanswered.removeValue(forKey: messageID) { return org }
        cannedReplies[messageID] = reply
        return nil
    }

    mutating func answered(_ messageID: String) {
        unanswered[messageID] = nil
    }
}
