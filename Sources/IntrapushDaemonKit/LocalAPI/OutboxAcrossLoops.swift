// SPDX-License-Identifier: Apache-2.0

import IntrapushInterface
import IntrapushStore
import NIOCore

/// The outbox as the local API reaches it: the outbox lives on the push connection's loop, the
/// API on its own, so that a commit that does not finish stalls the push path only. Each call
/// goes over to the outbox's loop, and its answer comes back to the API's.
final class OutboxAcrossLoops: LocalAPIOutbox, Sendable {
    let outbox: OutboxCoordinator
    /// The local API's loop, where every answer completes.
    let eventLoop: any EventLoop

    init(_ outbox: OutboxCoordinator, answeringOn eventLoop: any EventLoop) {
        self.outbox = outbox
        self.eventLoop = eventLoop
    }

    var settings: OutboxSettings { outbox.settings }

    func queue(_ submission: OutboxSubmission) -> EventLoopFuture<Result<OutboxCoordinator.QueuedMessage, OutboxRefusal>> {
        let outbox = self.outbox
        let eventLoop = self.eventLoop
        return outbox.eventLoop.flatSubmit { outbox.queue(submission) }
            .hop(to: eventLoop)
            .map { result in
                result.map { .init(row: $0.row, reply: $0.reply?.hop(to: eventLoop)) }
            }
    }

    func stopAwaiting(row: Int64) {
        let outbox = self.outbox
        outbox.eventLoop.execute { outbox.stopAwaiting(row: row) }
    }

    func markRead(ids: [Int64]?, for viewer: Viewer) -> EventLoopFuture<NotificationMarker.Outcome> {
        let outbox = self.outbox
        return outbox.eventLoop.flatSubmit { outbox.markRead(ids: ids, for: viewer) }.hop(to: eventLoop)
    }

    func wake() {
        let outbox = self.outbox
        outbox.eventLoop.execute { outbox.wake() }
    }
}
