// SPDX-License-Identifier: Apache-2.0

import IntrapushInterface
import IntrapushStore
extension NotificationRecord {
    /// The row a push just became: what `intrapush list --json` will print for it, unread.
    ///
    /// A binary payload reads as UTF-8 with U+FFFD for bytes that are not, as the CLI reads it.
    init(stored push: Push, rowID: Int64) {
        let payload: String
        switch push.payload {
        case .text(let text): payload = text
        case .binary(let bytes): payload = String(decoding: bytes, as: UTF8.self)
        }
        self.init(
            id: rowID, messageID: push.messageID, receivedAt: push.receivedAt, payload: payload,
            title: push.title, body: push.body, readAt: nil, priority: push.priority, link: push.link,
            recipients: push.recipients
        )
    }

    /// The rows a committed batch added, in order; duplicates added nothing and are left out.
    static func stored(_ pushes: [Push], outcomes: [StoreOutcome]) -> [NotificationRecord] {
        zip(pushes, outcomes).compactMap { push, outcome in
            guard case .inserted(let rowID) = outcome else { return nil }
            return NotificationRecord(stored: push, rowID: rowID)
        }
    }
}
