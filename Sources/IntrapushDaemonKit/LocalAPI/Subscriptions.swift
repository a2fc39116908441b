// SPDX-License-Identifier: Apache-2.0

import IntrapushInterface
import IntrapushStore
import NIOCore

/// The open `Subscribe` calls. After each commit that stored notifications, each subscriber's
/// next rows (after its cursor, as it may see them) are read on the query thread and sent, one
/// reply each, paced by what the subscriber reads: nothing waits in the daemon's memory but the
/// cursor. A subscription belongs to its call: when the call ends — it failed, or its
/// connection closed — it is let go at once. One that reads nothing for `dropAfter` while rows
/// wait for it is dropped with its connection; it resumes from its last id when it calls again.
/// Confined to the API's event loop.
final class Subscriptions {
    private final class Subscriber {
        let reply: VarlinkResponder<NotificationsInterface.Subscribe>
        let context: VarlinkCallContext
        let viewer: Viewer
        let userID: UInt32
        var cursor: Int64
        var isReading = false
        var hasNews = true
        var dropTimer: Scheduled<Void>?
        var isWaitingForReader = false

        init(reply: VarlinkResponder<NotificationsInterface.Subscribe>, context: VarlinkCallContext, viewer: Viewer, cursor: Int64) {
            self.reply = reply
            self.context = context
            self.viewer = viewer
            self.userID = UInt32(truncatingIfNeeded: viewer.userID)
            self.cursor = cursor
        }
    }

    unowned let api: LocalAPI
    private var subscribers: [ObjectIdentifier: Subscriber] = [:]
    static let rowsPerRead = 200
    static let dropAfter: TimeAmount = .seconds(30)
    static let retryAfterBusy: TimeAmount = .milliseconds(100)

    init(api: LocalAPI) {
        self.api = api
    }

    /// How many calls are subscribed.
    var count: Int { subscribers.count }

    func add(_ reply: VarlinkResponder<NotificationsInterface.Subscribe>, context: VarlinkCallContext, viewer: Viewer, after cursor: Int64) {
        guard context.isActive else { return }
        let subscriber = Subscriber(reply: reply, context: context, viewer: viewer, cursor: cursor)
        let key = ObjectIdentifier(context)
        subscribers[key] = subscriber
        // Before the first read: a commit that does not see this one is found by that read.
        api.openSubscriptions.withLockedValue { $0 += 1 }
        let open = api.openSubscriptions
        context.onEnd { [weak self] in
            subscriber.dropTimer?.cancel()
            self?.subscribers[key] = nil
            open.withLockedValue { $0 -= 1 }
        }
        read(subscriber)
    }

    /// The daemon stops: every subscription ends with its connection (a subscriber calls again,
    /// from its last id, once the next daemon answers).
    func endAll() {
        for subscriber in subscribers.values { subscriber.context.connection.close() }
    }

    /// New rows were committed.
    func committed() {
        for subscriber in subscribers.values {
            subscriber.hasNews = true
            read(subscriber)
        }
    }

    private func read(_ subscriber: Subscriber) {
        guard !subscriber.isReading, subscriber.hasNews, subscriber.context.isActive else { return }
        guard subscriber.context.isWritable else { return waitForReader(subscriber) }
        subscriber.isReading = true
        subscriber.hasNews = false
        let (cursor, viewer) = (subscriber.cursor, subscriber.viewer)
        api.queries.run(for: subscriber.userID, until: subscriber.context) { reader in
            try reader.notifications(after: cursor, limit: Self.rowsPerRead, viewer: viewer)
        }.assumeIsolated().whenComplete { result in
            subscriber.isReading = false
            switch result {
            case .success(let records):
                for record in records {
                    subscriber.reply.yield(.init(notification: record.localAPIValue))
                    subscriber.cursor = record.id
                }
                if records.count == Self.rowsPerRead { subscriber.hasNews = true }
            case .failure(is QueryRunner.Busy):
                // The user's other queries go first; look again in a moment.
                subscriber.hasNews = true
                self.api.eventLoop.assumeIsolated().scheduleTask(in: Self.retryAfterBusy) { self.read(subscriber) }
                return
            case .failure(let error):
                // The call ends with the error, and with it the subscription (`onEnd`).
                subscriber.reply.fail(self.api.notificationsFailure(error))
                return
            }
            self.read(subscriber)
        }
    }

    /// Rows wait and the subscriber reads nothing: go on when it does, drop it if it does not.
    private func waitForReader(_ subscriber: Subscriber) {
        guard !subscriber.isWaitingForReader else { return }
        subscriber.isWaitingForReader = true
        if subscriber.dropTimer == nil {
            subscriber.dropTimer = api.eventLoop.assumeIsolated().scheduleTask(in: Self.dropAfter) {
                if !subscriber.context.isWritable { subscriber.context.connection.close() }
            }
        }
        subscriber.context.whenWritable { [weak self] in
            subscriber.isWaitingForReader = false
            subscriber.dropTimer?.cancel()
            subscriber.dropTimer = nil
            self?.read(subscriber)
        }
    }
}
