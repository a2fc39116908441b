// SPDX-License-Identifier: Apache-2.0

import IntrapushInterface
import IntrapushStore
import IntrapushSupport
import NIOCore

/// The outbox's database work, on the writing loop like every other write.
extension StoreWorker {
    func enqueue(_ submissions: [OutboxSubmission], on eventLoop: any EventLoop)
        -> EventLoopFuture<[Result<Int64, OutboxRefusal>]>
    {
        let store = self.store
        return executor.runIfActive(eventLoop: eventLoop) {
            try store.enqueue(submissions, at: WallClock.nowMilliseconds())
        }
    }

    func loadOutbox(after rowID: Int64, limit: Int, on eventLoop: any EventLoop) -> EventLoopFuture<[OutboxEntry]> {
        let store = self.store
        return executor.runIfActive(eventLoop: eventLoop) {
            try store.undeliveredOutbox(after: rowID, limit: limit)
        }
    }

    func recordOutboxProgress(sent: [Int64], delivered: [Int64], on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
        let store = self.store
        return executor.runIfActive(eventLoop: eventLoop) {
            try store.recordOutboxProgress(sent: sent, delivered: delivered, at: WallClock.nowMilliseconds())
        }
    }

    func expireOutbox(on eventLoop: any EventLoop) -> EventLoopFuture<(expired: [AwaitedReply], nextExpiry: Int64?)> {
        let store = self.store
        return executor.runIfActive(eventLoop: eventLoop) {
            try store.expireOutbox(at: WallClock.nowMilliseconds())
        }
    }

    func markRead(ids: [Int64]?, for viewer: Viewer, receipts: ReadReceiptTemplate?, on eventLoop: any EventLoop)
        -> EventLoopFuture<NotificationMarker.Outcome>
    {
        let marks = self.marks
        let request: MarkSchedule.Request = ids.map { .ids($0) } ?? .all
        guard executor.eventLoop.inEventLoop else {
            return executor.eventLoop.flatSubmit {
                marks.mark(request, person: viewer.userID, viewer: viewer, receipts: receipts)
            }.hop(to: eventLoop)
        }
        return marks.mark(request, person: viewer.userID, viewer: viewer, receipts: receipts).hop(to: eventLoop)
    }

    /// The requests that wait for replies and the earliest deadline, for a daemon starting.
    func outboxAtStart() async throws -> (awaited: [AwaitedReply], nextExpiry: Int64?) {
        let store = self.store
        return try await executor.runIfActive { try store.outboxAtStart() }
    }
}
