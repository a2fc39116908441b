// SPDX-License-Identifier: Apache-2.0

/// What a row of the outbox is for.
package enum OutboxKind: String, Sendable, Equatable, CaseIterable {
    /// `intrapush send`: delivered once the server acknowledges it.
    case message
    /// `intrapush request`: waits, after delivery, for the server's reply.
    case request
    /// Queued by `mark-read` when `read_receipt_text` is set.
    case readReceipt = "read_receipt"
}

/// Where a row of the outbox is in its life.
package enum OutboxState: String, Sendable, Equatable, CaseIterable {
    /// Committed, not yet written to a connection.
    case queued
    /// Written to a connection at least once, not yet acknowledged: sent again after a reconnect.
    case sent
    /// Acknowledged by the server (or, without `upstream_ack_text`, written to the connection).
    case delivered
    /// A request whose reply is stored in the row.
    case replied
    /// Not delivered (or, for a request, not answered) in time: never sent again.
    case expired
}

/// A message waiting for the server, as the daemon sends it.
package struct OutboxEntry: Sendable, Equatable {
    /// The queue position (the table's `id`).
    package var rowID: Int64
    package var messageID: String
    package var kind: OutboxKind
    package var text: String
    /// Unix milliseconds after which it is no longer sent; `nil`: never.
    package var expiresAt: Int64?

    package init(rowID: Int64, messageID: String, kind: OutboxKind, text: String, expiresAt: Int64?) {
        self.rowID = rowID
        self.messageID = messageID
        self.kind = kind
        self.text = text
        self.expiresAt = expiresAt
    }
}

/// A message to queue: checked, with its id, kind and deadline.
package struct OutboxSubmission: Sendable, Equatable {
    package var message: OutboxMessage
    package var kind: OutboxKind
    package var expiresAt: Int64?

    package init(message: OutboxMessage, kind: OutboxKind, expiresAt: Int64?) {
        self.message = message
        self.kind = kind
        self.expiresAt = expiresAt
    }
}

/// A request still waiting for its reply: what a server frame is matched against.
package struct AwaitedReply: Sendable, Equatable {
    package var messageID: String
    package var rowID: Int64

    package init(messageID: String, rowID: Int64) {
        self.messageID = messageID
        self.rowID = rowID
    }
}
