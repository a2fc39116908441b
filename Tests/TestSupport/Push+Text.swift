// SPDX-License-Identifier: Apache-2.0

import IntrapushStore

extension Push {
    /// A push of plain text, as a test stores it: `payload` with the id `id`, received at `time`.
    package static func text(_ payload: String, id: String?, at time: Int64 = 1_700_000_000_000) -> Push {
        Push(payload: .text(payload), messageID: id, title: nil, body: nil, receivedAt: time)
    }
}
