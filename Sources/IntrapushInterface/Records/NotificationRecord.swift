// SPDX-License-Identifier: Apache-2.0

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
    /// `nil` when the push named none.
    package var priority: NotificationPriority?
    /// What the push opens, as the server wrote it.
    package var link: String?
    /// The `recipients` column (see `Recipients`); `nil`: to everyone.
    package var recipients: String?

    package init(
        id: Int64, messageID: String?, receivedAt: Int64, payload: String, title: String?, body: String?,
        readAt: Int64?, priority: NotificationPriority? = nil, link: String? = nil, recipients: String? = nil
    ) {
        self.id = id
        self.messageID = messageID
        self.receivedAt = receivedAt
        self.payload = payload
        self.title = title
        self.body = body
        self.readAt = readAt
        self.priority = priority
        self.link = link
        self.recipients = recipients
    }

    package var isUnread: Bool { readAt == nil }

    /// The columns `init(row:)` reads, in its order, from a database of `schemaVersion`: a file an
    /// older daemon wrote has no priority, link or recipients, and reads them as NULL.
    /// `readAt` is the expression for the read_at column: a viewer's own mark (`Viewer`).
    package static func selectColumns(schemaVersion: Int, readAt: String = "read_at") -> String {
        "id, message_id, received_at, payload, title, body, \(readAt), "
            + (schemaVersion >= 5 ? "priority, link, recipients" : "NULL, NULL, NULL")
    }

    package init(row statement: Statement) {
        self.init(
            id: statement.int64(at: 0),
            messageID: statement.string(at: 1),
            receivedAt: statement.int64(at: 2),
            payload: statement.string(at: 3) ?? "",
            title: statement.string(at: 4),
            body: statement.string(at: 5),
            readAt: statement.optionalInt64(at: 6),
            // A level outside 1-5 (a hand-edited row) is no level.
            priority: statement.optionalInt64(at: 7).flatMap { Int(exactly: $0) }.flatMap(NotificationPriority.init(rawValue:)),
            link: statement.string(at: 8),
            recipients: statement.string(at: 9)
        )
    }
}

extension NotificationRecord {
    /// The keys of `--json` and of the CSV header, in the documented order; later fields are
    /// added at the end.
    package static let fieldNames = [
        "id", "message_id", "received_at", "title", "body", "payload", "read_at", "priority", "link", "recipients",
    ]

    /// The recipients as a list; `nil` when the push is for everyone.
    package var recipientNames: [String]? { recipients.map(Recipients.names(in:)) }

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
        output += ",\"priority\":"
        Self.appendJSON(priority?.name, to: &output)
        output += ",\"link\":"
        Self.appendJSON(link, to: &output)
        output += ",\"recipients\":"
        if let names = recipientNames {
            output += "["
            for (index, name) in names.enumerated() {
                if index > 0 { output += "," }
                JSONText.appendQuoted(name, to: &output)
            }
            output += "]"
        } else {
            output += "null"
        }
        output += "}\n"
    }

    private static func appendJSON(_ text: String?, to output: inout String) {
        if let text { JSONText.appendQuoted(text, to: &output) } else { output += "null" }
    }
}
