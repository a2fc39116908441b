import IntrapushSupport
import IntrapushStore
/// One row of the public `notifications` table, as the CLI prints it and a hook reads it.
package struct NotificationRecord: Sendable, Equatable {
    package var id: Int64
    /// The server's id; `nil` when the push had none.
    package var messageID: String?
    /// Unix milliseconds.
    package var receivedAt: Int64
    /// The frame as received. A binary frame reads as UTF-8, with U+FFFD for bytes that are not.
    package var payload: String
    package var title: String?
    package var body: String?
    /// Unix milliseconds when marked read; `nil` while unread.
    package var readAt: Int64?

    package init(
        id: Int64, messageID: String?, receivedAt: Int64, payload: String, title: String?, body: String?,
        readAt: Int64?
    ) {
        self.id = id
        self.messageID = messageID
        self.receivedAt = receivedAt
        self.payload = payload
        self.title = title
        self.body = body
        self.readAt = readAt
    }

    package var isUnread: Bool { readAt == nil }

    /// The columns `init(row:)` reads, in its order.
    package static let selectColumns = "id, message_id, received_at, payload, title, body, read_at"

    package init(row statement: Statement) {
        self.init(
            id: statement.int64(at: 0),
            messageID: statement.string(at: 1),
            receivedAt: statement.int64(at: 2),
            payload: statement.string(at: 3) ?? "",
            title: statement.string(at: 4),
            body: statement.string(at: 5),
            readAt: statement.optionalInt64(at: 6)
        )
    }
}

extension NotificationRecord {
    /// The keys of `--json` and of the CSV header, in the documented order (id, message_id, received_at, title, body, payload, read_at).
    package static let fieldNames = ["id", "message_id", "received_at", "title", "body", "payload", "read_at"]

    /// One JSON Lines object with exactly those keys, and a newline.
    package func appendJSONLine(to output: inout String) {
        output += "{\"id\":"
        output += String(id)
        output += ",\"message_id\":"
        Self.appendJSON(messageID, to: &output)
        output += ",\"received_at\":\""
        output += Timestamp.rfc3339(milliseconds: receivedAt)
        output += "\",\"title\":"
        Self.appendJSON(title, to: &output)
        output += ",\"body\":"
        Self.appendJSON(body, to: &output)
        output += ",\"payload\":"
        JSONText.appendQuoted(payload, to: &output)
        output += ",\"read_at\":"
        if let readAt {
            output += "\"" + Timestamp.rfc3339(milliseconds: readAt) + "\""
        } else {
            output += "null"
        }
        output += "}\n"
    }

    private static func appendJSON(_ text: String?, to output: inout String) {
        if let text { JSONText.appendQuoted(text, to: &output) } else { output += "null" }
    }
}
