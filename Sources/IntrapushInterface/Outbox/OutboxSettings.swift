// SPDX-License-Identifier: Apache-2.0

import IntrapushConfiguration
import IntrapushStore
import IntrapushSupport

/// What queueing a message depends on, derived from the configuration: used by the daemon for
/// the local API (a reload replaces it) and by the CLI writing while no daemon runs, so that
/// both check and time a message alike.
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

    /// `text` checked and given its id, with its deadline: ready to queue.
    package func submission(
        _ text: String, kind: OutboxKind, timeout: Duration?, queuedAt now: Int64
    ) throws(OutboxRefusal) -> OutboxSubmission {
        let message = try OutboxMessage.prepare(text, idField: idField, maximumSize: maximumMessageSize)
        let deadline: Int64? = switch kind {
        case .request: now + (timeout ?? requestTimeout).milliseconds
        case .message, .readReceipt: timeToLive.map { now + $0.milliseconds }
        }
        return OutboxSubmission(message: message, kind: kind, expiresAt: deadline)
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
