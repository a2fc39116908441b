import IntrapushStore
import NIOCore

/// Commits a batch of pushes durably; the future completes on `eventLoop` after the commit.
protocol PushCommitter: Sendable {
    func commit(_ pushes: [Push], on eventLoop: any EventLoop) -> EventLoopFuture<[StoreOutcome]>
}
