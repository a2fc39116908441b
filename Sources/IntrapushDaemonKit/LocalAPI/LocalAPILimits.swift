// SPDX-License-Identifier: Apache-2.0

import IntrapushConfiguration

/// What one call of the local API may cost (docs/operating.md, "Limits"); the connections' own ceilings
/// are the Varlink server's (`VarlinkLimits`).
struct LocalAPILimits: Sendable {
    /// Queries of one user waiting behind the one running; more are answered Busy.
    var maximumWaitingQueries = 4
    /// Rows in one reply of a list, and the reply's size they stop at.
    var rowsPerReply = 500
    var bytesPerReply = 1 << 20
    /// The most a list without `more` returns: rows, and the text past which it is refused
    /// (`ExpectedMore`: ask with `more`, in replies of `bytesPerReply`). The first row always
    /// fits: one notification is bounded by `max_message_size`.
    var largestList = 1000
    var largestListBytes = 1 << 20
    /// The longest timeout a `Request` may name: as long as the longest duration the
    /// configuration accepts.
    var longestRequestTimeout: Duration = DurationParser.longest

    init() {}
}
