import IntrapushConfiguration
import IntrapushStore

/// What queueing a message depends on, derived from the configuration; a reload replaces it
/// without touching the connection.
package struct OutboxSettings: Sendable, Equatable {
    /// `upstream_id_field`.
    package var idField: String
    /// `max_message_size`: a message we would not accept ourselves is not sent either.
    package var maximumMessageSize: Int
    /// `outbox_ttl`; `nil`: forever.
    package var timeToLive: Duration?
    /// `request_timeout`, for a request that names none.
    package var requestTimeout: Duration
    /// `read_receipt_text` and what it needs; `nil`: marking read queues nothing.
    package var receipts: ReadReceiptTemplate?

    /// When a message queued at `now` stops being tried.
    func deadline(for kind: OutboxKind, queuedAt now: Int64, timeout: Duration?) -> Int64? {
        switch kind {
        case .request: now + (timeout ?? requestTimeout).milliseconds
        case .message, .readReceipt: timeToLive.map { now + $0.milliseconds }
        }
    }
}

extension Configuration {
    package var outbox: OutboxSettings {
        let timeToLive = outboxTTL
        return OutboxSettings(
            idField: upstreamIDField, maximumMessageSize: maxMessageSize, timeToLive: timeToLive,
            requestTimeout: requestTimeout,
            receipts: readReceiptText.map {
                ReadReceiptTemplate(
                    text: $0, idField: upstreamIDField, maximumSize: maxMessageSize,
                    timeToLive: timeToLive.map(\.milliseconds))
            })
    }
}

extension Duration {
    /// Whole milliseconds, rounded down.
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
