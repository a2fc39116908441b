import IntrapushStore
import NIOCore

/// Commits a batch of pushes durably; the future completes on `eventLoop` after the commit.
protocol PushCommitter: Sendable {
    func commit(_ pushes: [Push], on eventLoop: any EventLoop) -> EventLoopFuture<[StoreOutcome]>
    /// The acknowledgements of `count` committed pushes went out (the live state counts them).
    func acknowledged(_ count: Int)
}
