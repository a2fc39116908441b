import IntrapushSupport

/// Marks notifications read (`intrapush mark-read`), and queues a read receipt for each one that
/// has a message id when `read_receipt_text` is set, in the same transaction.
///
/// Runs in the daemon (on its store connection, for the CLI's request over the control socket)
/// or, when no daemon runs, in the CLI on a read-write connection of its own: one short
/// `BEGIN IMMEDIATE` transaction either way. An earlier `read_at` is kept: the first time
/// something was read is the useful one.
package final class NotificationMarker {
    let connection: SQLiteConnection
    private lazy var outbox = OutboxTable(connection: connection)

    package init(connection: SQLiteConnection) {
        self.connection = connection
    }

    /// What `markRead(ids:at:receipts:)` did.
    package struct Outcome: Sendable, Equatable {
        /// Rows whose `read_at` was set now.
        package var marked: Int
        /// Requested ids that exist but were already read.
        package var alreadyRead: Int
        /// Requested ids that do not exist, in the order given.
        package var missing: [Int64]
        /// Read receipts queued for the server.
        package var receipts: Int

        package init(marked: Int = 0, alreadyRead: Int = 0, missing: [Int64] = [], receipts: Int = 0) {
            self.marked = marked
            self.alreadyRead = alreadyRead
            self.missing = missing
            self.receipts = receipts
        }
    }

    /// Sets `read_at = now` on each of `ids` that is unread.
    package func markRead(ids: [Int64], at now: Int64, receipts: ReadReceiptTemplate? = nil) throws -> Outcome {
        let update = try connection.prepare(
            "UPDATE notifications SET read_at = ? WHERE id = ? AND read_at IS NULL RETURNING message_id")
        let exists = try connection.prepare("SELECT 1 FROM notifications WHERE id = ?")
        return try connection.transaction {
            var outcome = Outcome()
            for id in ids {
                defer { update.reset(); exists.reset() }
                try update.bind(now, at: 1)
                try update.bind(id, at: 2)
                if try update.step() {
                    outcome.marked += 1
                    if let receipts, let messageID = update.string(at: 0) {
                        outcome.receipts += try queueReceipt(receipts, messageID: messageID, readAt: now)
                    }
                    continue
                }
                // Nothing changed: the id is missing, or it was read already.
                try exists.bind(id, at: 1)
                if try exists.step() { outcome.alreadyRead += 1 } else { outcome.missing.append(id) }
            }
            return outcome
        }
    }

    /// Marks every unread notification read.
    package func markAllRead(at now: Int64, receipts: ReadReceiptTemplate? = nil) throws -> Outcome {
        let update = try connection.prepare(
            "UPDATE notifications SET read_at = ? WHERE read_at IS NULL RETURNING message_id")
        return try connection.transaction {
            defer { update.reset() }
            try update.bind(now, at: 1)
            var outcome = Outcome()
            var messageIDs: [String] = []
            while try update.step() {
                outcome.marked += 1
                if receipts != nil, let messageID = update.string(at: 0) { messageIDs.append(messageID) }
            }
            update.reset()
            if let receipts {
                for messageID in messageIDs {
                    outcome.receipts += try queueReceipt(receipts, messageID: messageID, readAt: now)
                }
            }
            return outcome
        }
    }

    /// 1 when queued; 0 when the same receipt still waits (its id came from the template).
    private func queueReceipt(_ template: ReadReceiptTemplate, messageID: String, readAt: Int64) throws -> Int {
        let submission = OutboxSubmission(
            message: try template.receipt(messageID: messageID, readAt: readAt), kind: .readReceipt,
            expiresAt: template.timeToLive.map { readAt + $0 })
        switch try outbox.enqueue(submission, at: readAt) {
        case .success: return 1
        case .failure(.duplicate): return 0
        case .failure(let refusal): throw refusal
        }
    }
}

/// `read_receipt_text` with what a receipt needs around it.
package struct ReadReceiptTemplate: Sendable, Equatable {
    /// A JSON object text with `{message_id}` and `{read_at}` in it.
    package var text: String
    package var idField: String
    package var maximumSize: Int
    /// `outbox_ttl` in milliseconds; `nil`: never expires.
    package var timeToLive: Int64?

    package init(text: String, idField: String, maximumSize: Int, timeToLive: Int64?) {
        self.text = text
        self.idField = idField
        self.maximumSize = maximumSize
        self.timeToLive = timeToLive
    }

    /// The receipt for one notification: `{message_id}` as the content of a JSON string (escaped),
    /// `{read_at}` as Unix milliseconds.
    package func receipt(messageID: String, readAt: Int64) throws(OutboxRefusal) -> OutboxMessage {
        let quoted = JSONText.quoted(messageID)
        let escaped = String(quoted.dropFirst().dropLast())
        let text = self.text.replacing("{message_id}", with: escaped).replacing("{read_at}", with: String(readAt))
        return try OutboxMessage.prepare(text, idField: idField, maximumSize: maximumSize)
    }
}
