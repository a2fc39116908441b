// SPDX-License-Identifier: Apache-2.0

import IntrapushStore

/// The open connection, as the outbox sees it: writes messages as text frames.
protocol OutboxSender: AnyObject {
    /// Writes `entries` in order and flushes; `false` when the connection no longer takes data
    /// frames (it is closing), and nothing was written.
    func sendUpstream(_ entries: [OutboxEntry]) -> Bool
    /// The outbox could not read the database: drop the connection, as for a failed commit.
    func outboxFailed(_ detail: String)
}
