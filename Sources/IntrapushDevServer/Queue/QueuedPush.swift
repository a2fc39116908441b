// SPDX-License-Identifier: Apache-2.0

import NIOCore

/// A push held by the server until a client acknowledges it.
struct QueuedPush: Sendable, Equatable {
    /// The server's own number for the push, increasing in the order pushes were queued.
    var sequenceNumber: Int
    /// The `id` member of a JSON payload, used to check acknowledgements and commits.
    var messageID: String?
    var payload: ByteBuffer
    /// Sent as a binary frame rather than a text frame.
    var isBinary: Bool
    /// Part of a steady run: its flush and acknowledgement times are recorded as a latency.
    var isTimed = false
}
