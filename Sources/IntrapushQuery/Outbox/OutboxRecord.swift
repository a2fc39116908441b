// SPDX-License-Identifier: Apache-2.0

import IntrapushInterface
import IntrapushStore
import IntrapushSupport

/// One row of the public `outbox` table, as `intrapush outbox` shows it.
package struct OutboxRecord: Sendable, Equatable {
    package var id: Int64
    package var messageID: String
    package var kind: String
    package var state: String
    package var attempts: Int64
    package var queuedAt: Int64
    package var expiresAt: Int64?
    package var sentAt: Int64?
    package var deliveredAt: Int64?
    package var repliedAt: Int64?
    package var expiredAt: Int64?
    package var payload: String
    package var reply: String?

    static let columns = """
        id, message_id, kind, state, attempts, queued_at, expires_at, sent_at, delivered_at, replied_at, expired_at, payload, reply
        """

    init(_ statement: Statement) {
        id = statement.int64(at: 0)
        messageID = statement.string(at: 1) ?? ""
        kind = statement.string(at: 2) ?? ""
        state = statement.string(at: 3) ?? ""
        attempts = statement.int64(at: 4)
        queuedAt = statement.int64(at: 5)
        expiresAt = statement.optionalInt64(at: 6)
        sentAt = statement.optionalInt64(at: 7)
        deliveredAt = statement.optionalInt64(at: 8)
        repliedAt = statement.optionalInt64(at: 9)
        expiredAt = statement.optionalInt64(at: 10)
        payload = statement.string(at: 11) ?? ""
        reply = statement.string(at: 12)
    }

    /// `outbox --json`: one object per line, times RFC 3339 UTC like `list --json`, absent ones null.
    package func appendJSONLine(to output: inout String) {
        output += "{\"id\":\(id),\"message_id\":"
        JSONText.appendQuoted(messageID, to: &output)
        output += ",\"kind\":\"\(kind)\",\"state\":\"\(state)\",\"attempts\":\(attempts)"
        for (key, time) in [
            ("queued_at", queuedAt as Int64?), ("expires_at", expiresAt), ("sent_at", sentAt),
            ("delivered_at", deliveredAt), ("replied_at", repliedAt), ("expired_at", expiredAt),
        ] {
            output += ",\"\(key)\":" + (time.map { "\"" + Timestamp.rfc3339(milliseconds: $0) + "\"" } ?? "null")
        }
        output += ",\"payload\":"
        JSONText.appendQuoted(payload, to: &output)
        output += ",\"reply\":"
        if let reply { JSONText.appendQuoted(reply, to: &output) } else { output += "null" }
        output += "}\n"
    }
}

extension NotificationReader {
    /// Outbox rows, newest first; `state` filters, `limit` 0 is all.
    package func outbox(state: String?, limit: Int) throws -> [OutboxRecord] {
        guard try hasOutbox() else { return [] }
        var sql = "SELECT \(OutboxRecord.columns) FROM outbox"
        if state != nil { sql += " WHERE state = ?" }
        sql += " ORDER BY id DESC"
        if limit > 0 { sql += " LIMIT \(limit)" }
        let statement = try connection.prepare(sql)
        if let state { try statement.bind(state, at: 1) }
        var records: [OutboxRecord] = []
        while try statement.step() { records.append(OutboxRecord(statement)) }
        return records
    }

    /// How many messages wait for delivery, and when the oldest was queued.
    package func outboxBacklog() throws -> (waiting: Int64, oldestQueuedAt: Int64?) { try database.outboxBacklog() }

    private func hasOutbox() throws -> Bool { try database.hasOutbox() }
}
