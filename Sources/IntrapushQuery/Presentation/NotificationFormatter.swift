// SPDX-License-Identifier: Apache-2.0

import IntrapushSupport
import IntrapushInterface
/// Renders notifications for people: `list` as an aligned table, `follow` one line each, `show`
/// as a record. Machine formats live on `NotificationRecord` (`appendJSONLine`, `appendCSVRecord`).
package struct NotificationFormatter: Sendable {
    /// Unix ms to measure ages from.
    package var now: Int64
    /// Terminal columns to fit into; `nil` for no fitting (a pipe).
    package var width: Int?
    package var useColor: Bool

    package init(now: Int64, width: Int?, useColor: Bool) {
        self.now = now
        self.width = width
        self.useColor = useColor
    }

    /// The `list` table: header, then one line per record; unread rows marked `*` (and bold), high
    /// ones `!`, urgent ones `!!`.
    package func tableLines(_ records: [NotificationRecord]) -> [String] {
        let table = TextTable(
            columns: [
                TextTable.Column(""),
                TextTable.Column("ID", alignment: .right),
                TextTable.Column("RECEIVED"),
                TextTable.Column("TITLE", isFlexible: true),
                TextTable.Column("BODY", isFlexible: true),
            ],
            useColor: useColor
        )
        let rows = records.map { record in
            [
                Self.marks(of: record),
                String(record.id),
                RelativeTime.describe(milliseconds: record.receivedAt, now: now),
                record.title ?? "",
                Self.bodyText(of: record),
            ]
        }
        let styles = records.map { $0.isUnread ? TextTable.RowStyle.emphasized : .plain }
        return table.render(rows: rows, styles: styles, maxWidth: width)
    }

    /// One `follow` line: local time, id, title and body, cut to the width.
    package func followLine(_ record: NotificationRecord) -> String {
        let time = Timestamp.local(milliseconds: record.receivedAt)
        var text = DisplayWidth.singleLine(record.title ?? "")
        let body = DisplayWidth.singleLine(Self.bodyText(of: record))
        if !text.isEmpty && !body.isEmpty { text += " — " }
        text += body
        let prefix = "\(time)  #\(record.id)  "
        if let width {
            text = DisplayWidth.truncate(text, toWidth: max(8, width - DisplayWidth.of(prefix)))
        }
        guard useColor else { return prefix + text }
        return "\u{1B}[2m\(time)\u{1B}[0m  #\(record.id)  \u{1B}[1m\(text)\u{1B}[0m"
    }

    /// `show`: every field, then the whole payload; control characters made visible.
    package func detail(_ record: NotificationRecord) -> String {
        var lines: [(String, String)] = [
            ("ID", String(record.id)),
            ("Message ID", record.messageID ?? "(none)"),
            ("Received", RelativeTime.withLocalTime(milliseconds: record.receivedAt, now: now)),
            ("Read", record.readAt.map { RelativeTime.withLocalTime(milliseconds: $0, now: now) } ?? "no"),
        ]
        if let priority = record.priority { lines.append(("Priority", "\(priority.name) (\(priority.rawValue))")) }
        if let title = record.title { lines.append(("Title", title)) }
        if let body = record.body { lines.append(("Body", body)) }
        if let link = record.link { lines.append(("Link", link)) }
        if let names = record.recipientNames {
            lines.append(("To", names.isEmpty ? "(no one this host knows)" : names.joined(separator: ", ")))
        }
        var text = ""
        for (label, value) in lines {
            let key = label + ":" + String(repeating: " ", count: 12 - label.count)
            text += (useColor ? "\u{1B}[1m\(key)\u{1B}[0m" : key) + TerminalText.sanitized(value) + "\n"
        }
        text += (useColor ? "\u{1B}[1mPayload:\u{1B}[0m" : "Payload:") + "\n"
        text += TerminalText.sanitized(record.payload)
        if !record.payload.hasSuffix("\n") { text += "\n" }
        return text
    }

    /// `*` for unread, then `!` for high or `!!` for urgent.
    static func marks(of record: NotificationRecord) -> String {
        let priority = switch record.priority {
        case .high: "!"
        case .urgent: "!!"
        default: ""
        }
        if priority.isEmpty { return record.isUnread ? "*" : "" }
        return (record.isUnread ? "*" : " ") + priority
    }

    /// The body, or for a push that is not a JSON object with a title or body, its payload.
    static func bodyText(of record: NotificationRecord) -> String {
        if let body = record.body { return body }
        return record.title == nil ? record.payload : ""
    }
}
