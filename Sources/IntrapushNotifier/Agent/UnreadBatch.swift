// SPDX-License-Identifier: Apache-2.0

import IntrapushInterface

/// What a look at the database found to show: the newest unread few, and how many older unread
/// ones one summary stands for.
package struct UnreadBatch: Sendable, Equatable {
    /// Oldest first; at most the catch-up count.
    package var newest: [NotificationRecord]
    /// Unread ones older than `newest`, shown as one summary.
    package var summarized: Int64
    /// The highest id the look covered (read or not, for this person or not): the cursor once
    /// everything in the batch is shown.
    package var through: Int64

    package init(newest: [NotificationRecord], summarized: Int64, through: Int64) {
        self.newest = newest
        self.summarized = summarized
        self.through = through
    }
}
