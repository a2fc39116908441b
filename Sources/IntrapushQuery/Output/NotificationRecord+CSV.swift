// SPDX-License-Identifier: Apache-2.0

import IntrapushInterface
import IntrapushSupport

extension NotificationRecord {
    /// One CSV record (RFC 4180, CRLF), fields in `fieldNames` order, times as in `--json`.
    package func appendCSVRecord(to output: inout String) {
        CSVText.appendRecord([
            String(id), messageID, Timestamp.rfc3339(milliseconds: receivedAt), title, body, payload,
            readAt.map { Timestamp.rfc3339(milliseconds: $0) }, priority?.name, link,
            // One name per line inside the quoted field, as in the column.
            recipients,
        ], to: &output)
    }
}
