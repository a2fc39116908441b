// SPDX-License-Identifier: Apache-2.0

extension NotificationStore {
    /// Queues messages in ONE transaction (one fsync for all who asked meanwhile); each gets its
    /// row id or the reason it was refused. A throw means none was queued.
    package func enqueue(_ submissions: [OutboxSubmission], at now: Int64) throws -> [Result<Int64, OutboxRefusal>] {
        try connection.transaction {
            try submissions.map { try outbox.enqueue($0, at: now) }
        }
    }

    /// Up to `limit` messages still to deliver, in queue order, after row `rowID`; none from the
    /// first receipt not yet durable on (its mark may yet be lost: the server must not hear of it).
    package func undeliveredOutbox(after rowID: Int64, limit: Int) throws -> [OutboxEntry] {
        try outbox.undelivered(after: rowID, before: receiptsNotYetDurable.first?.firstRow ?? .max, limit: limit)
    }

    /// Every commit up to `commit` is durable: so are the receipts it queued.
    package func receiptsDurable(through commit: Int) {
        receiptsNotYetDurable.removeAll { $0.commit <= commit }
    }

    /// Records what went out and what the server acknowledged, in one transaction.
    package func recordOutboxProgress(sent: [Int64], delivered: [Int64], at now: Int64) throws {
        guard !sent.isEmpty || !delivered.isEmpty else { return }
        try connection.transaction {
            try outbox.markSent(sent, at: now)
            try outbox.markDelivered(delivered, at: now)
        }
    }

    /// Expires what is past its deadline; returns those rows and the next deadline.
    package func expireOutbox(at now: Int64) throws -> (expired: [AwaitedReply], nextExpiry: Int64?) {
        try connection.transaction {
            (try outbox.expireDue(at: now), try outbox.nextExpiry())
        }
    }

    /// Requests waiting for a reply, and the earliest deadline: what the daemon starts with.
    package func outboxAtStart() throws -> (awaited: [AwaitedReply], nextExpiry: Int64?) {
        (try outbox.awaitedReplies(), try outbox.nextExpiry())
    }

    /// Commits parts of the local API's marks in one transaction; see `MarkPart`. With
    /// `.byCaller`, as a burst's batch: durable once the caller's `walFile.sync()` returns.
    package func markParts(_ parts: [MarkPart], at now: Int64, syncing sync: WALSync = .inCommit) throws -> [MarkPart.Result] {
        guard sync == .inCommit else {
            marker.forgetReceiptRows()
            let results = try syncedByCaller { try marker.mark(parts, at: now) }
            if let first = marker.firstReceiptRow { receiptsNotYetDurable.append((commitsWritten, first)) }
            return results
        }
        return try marker.mark(parts, at: now)
    }

    /// Marks notifications read for a caller of the local API; see `NotificationMarker`.
    package func markRead(ids: [Int64]?, for viewer: Viewer, at now: Int64, receipts: ReadReceiptTemplate?) throws -> NotificationMarker.Outcome {
        let marker = NotificationMarker(connection: connection)
        guard let ids else { return try marker.markAllRead(for: viewer, at: now, receipts: receipts) }
        return try marker.markRead(ids: ids, for: viewer, at: now, receipts: receipts)
    }
}
