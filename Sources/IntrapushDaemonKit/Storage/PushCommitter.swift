// SPDX-License-Identifier: Apache-2.0

import IntrapushStore
import NIOCore

/// Commits a batch of pushes durably; the future completes on `eventLoop` after the commit.
protocol PushCommitter: Sendable {
    func commit(_ pushes: [Push], on eventLoop: any EventLoop) -> EventLoopFuture<CommittedBatch>
    /// The acknowledgements of `count` committed pushes went out (the live state counts them).
    func acknowledged(_ count: Int)
}

/// What a commit did with each push of its batch, and when it ran (uptime nanoseconds, the clock
/// of `Push.arrivedAtUptimeNanoseconds`): the metrics split a push's latency into its wait for
/// the commit, the commit, and its way on to the acknowledgement.
struct CommittedBatch: Sendable {
    var outcomes: [StoreOutcome]
    var startedAtUptimeNanoseconds: UInt64 = 0
    var finishedAtUptimeNanoseconds: UInt64 = 0
}
