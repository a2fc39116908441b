// SPDX-License-Identifier: Apache-2.0

extension NotificationFormatter {
    /// The `outbox` table: what waits for the server and what went, newest first.
    package func outboxLines(_ records: [OutboxRecord]) -> [String] {
        let table = TextTable(
            columns: [
                TextTable.Column("ID", alignment: .right),
                TextTable.Column("STATE"),
                TextTable.Column("KIND"),
                TextTable.Column("TRIES", alignment: .right),
                TextTable.Column("QUEUED"),
                TextTable.Column("MESSAGE ID", isFlexible: true),
                TextTable.Column("PAYLOAD", isFlexible: true),
            ],
            useColor: useColor
        )
        let rows = records.map { record in
            [
                String(record.id), record.state, record.kind.replacing("_", with: " "), String(record.attempts),
                RelativeTime.describe(milliseconds: record.queuedAt, now: now), record.messageID, record.payload,
            ]
        }
        let styles = records.map { ["queued", "sent"].contains($0.state) ? TextTable.RowStyle.emphasized : .plain }
        return table.render(rows: rows, styles: styles, maxWidth: width)
    }
}
