// SPDX-License-Identifier: Apache-2.0

/// One push as the server sent it, decoded and ready to store.
///
/// The decoder fills `messageID`, `title`, `body`, `priority`, `link` and `recipients` from a JSON
/// object payload; a payload that is not a JSON object keeps them all `nil` and is stored as it came.
package struct Push: Sendable, Equatable {
    /// The frame's content: text frames and valid UTF-8 binary frames are `.text`.
    package enum Payload: Sendable, Equatable {
        case text(String)
        case binary([UInt8])
    }

    package var payload: Payload
    /// The server's id for this push (`id_field`), as a string; `nil` when it had none.
    package var messageID: String?
    /// The id was a JSON number (its exact digits are `messageID`): an acknowledgement that puts
    /// the id where a JSON value stands writes it as a number again.
    package var messageIDIsNumber = false
    package var title: String?
    package var body: String?
    /// Unix time in milliseconds when the frame was received.
    package var receivedAt: Int64
    /// The string member `reply_to_field` of a JSON object payload: the request it may answer.
    package var inReplyTo: String?
    /// `priority_field`; `nil` when the push named none (or none we understand).
    package var priority: NotificationPriority?
    /// `link_field` (else `url`): what the push opens, as the server wrote it.
    package var link: String?
    /// `recipients_field`, as the `recipients` column's text (see `Recipients`); `nil`: to everyone.
    package var recipients: String?
    /// When the frame was read, on the monotonic clock (`CLOCK_MONOTONIC` nanoseconds; 0 when
    /// not taken): the start of its push→ack latency.
    package var arrivedAtUptimeNanoseconds: UInt64 = 0
    /// The outbox row of the waiting request this frame answers: it is stored there as the
    /// reply, not as a notification. Set by the daemon, which knows what waits.
    package var answersRequest: Int64?

    package init(payload: Payload, messageID: String?, title: String?, body: String?, receivedAt: Int64) {
        self.payload = payload
        self.messageID = messageID
        self.title = title
        self.body = body
        self.receivedAt = receivedAt
    }

    /// The payload's size in bytes, for the ceilings on what may wait in memory.
    package var payloadByteCount: Int {
        switch payload {
        case .text(let text): text.utf8.count
        case .binary(let bytes): bytes.count
        }
    }

    /// The payload as text (binary frames as UTF-8 with replacement), for a reply's row.
    package var text: String {
        switch payload {
        case .text(let text): text
        case .binary(let bytes): String(decoding: bytes, as: UTF8.self)
        }
    }
}

/// What the store did with one push of a batch.
package enum StoreOutcome: Sendable, Equatable {
    /// Inserted as a new row with this local id.
    case inserted(rowID: Int64)
    /// A row with the same message id already existed; nothing was written.
    case duplicate
    /// A reply, stored in its request's outbox row (or already there, when redelivered).
    case reply
}
