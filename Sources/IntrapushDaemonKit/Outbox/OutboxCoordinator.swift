// SPDX-License-Identifier: Apache-2.0

import IntrapushInterface
import IntrapushStore
import IntrapushSupport
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// Runs the outbox: a thin shell around `OutboxStateMachine` that performs its actions with the
/// writer and the open connection, batches the store's writes, and keeps the expiry timer.
///
/// Confined to the push connection's event loop, which also runs the connection and commits;
/// `@unchecked Sendable` so that the local API (on its own loop, through `OutboxAcrossLoops`)
/// can hold it, every entry point checks the loop. Only `settings` is read from anywhere.
final class OutboxCoordinator: @unchecked Sendable {
    let eventLoop: any EventLoop
    let storeWorker: StoreWorker
    let logger: Logger
    private let currentSettings: NIOLockedValueBox<OutboxSettings>
    /// The rules messages are queued by now (a reload changes them); read from any thread.
    var settings: OutboxSettings { currentSettings.withLockedValue { $0 } }
    private var machine = OutboxStateMachine()
    private weak var sender: (any OutboxSender)?

    /// Rows written to the server and acknowledged by it, recorded together while no record is
    /// under way (one fsync for many).
    private var progress = WriteCoalescer<OutboxProgress>()
    /// Messages from the local API, queued together while no enqueue is under way; each
    /// caller's answer waits for the commit of its batch.
    private var submissions = WriteCoalescer<(OutboxSubmission, EventLoopPromise<Result<QueuedMessage, OutboxRefusal>>)>()
    /// Callers of the local API waiting for a request's reply, by its outbox row.
    private var replyWaiters: [Int64: [EventLoopPromise<RequestOutcome>]] = [:]
    private var expiryTimer: Scheduled<Void>?
    private var expiryAt: Int64?
    /// A timer never sleeps longer: the monotonic clock stops during a suspend.
    static let longestExpirySleep: Int64 = 3_600_000
    /// Expired messages logged one by one in a pass; the rest in one line.
    static let expiriesLoggedEach = 20

    init(eventLoop: any EventLoop, storeWorker: StoreWorker, settings: OutboxSettings, logger: Logger) {
        self.eventLoop = eventLoop
        self.storeWorker = storeWorker
        self.currentSettings = NIOLockedValueBox(settings)
        self.logger = logger
    }

    /// Reads the requests that wait for replies and arms the expiry timer; before the first dial.
    func start() async throws {
        let (awaited, nextExpiry) = try await storeWorker.outboxAtStart()
        try await eventLoop.submit {
            self.machine = OutboxStateMachine(awaiting: awaited)
            self.scheduleExpiry(at: nextExpiry)
        }.get()
    }

    func settingsChanged(_ settings: OutboxSettings) {
        currentSettings.withLockedValue { $0 = settings }
    }

    func stop() {
        eventLoop.execute {
            self.expiryTimer?.cancel()
            self.expiryTimer = nil
        }
    }

    // MARK: The connection

    /// After `hello_text`: the connection takes messages now.
    func attach(_ sender: any OutboxSender, window: Int, acknowledges: Bool) {
        eventLoop.assertInEventLoop()
        // Returning to the primary: the new connection takes over before the old one closes; what
        // was in flight on the old one goes again on the new, in order.
        if self.sender != nil { perform(machine.connectionClosed()) }
        self.sender = sender
        perform(machine.connectionOpened(window: window, acknowledges: acknowledges))
    }

    /// The connection is closing or closed: nothing more goes to it.
    func detach(_ sender: any OutboxSender) {
        eventLoop.assertInEventLoop()
        guard self.sender === sender else { return }
        self.sender = nil
        perform(machine.connectionClosed())
    }

    /// Whether `messageID` (from a frame of `upstream_ack_text`'s shape) acknowledged one of ours
    /// in flight; such a frame is not a push either way.
    func acknowledgementReceived(_ messageID: String) -> Bool {
        eventLoop.assertInEventLoop()
        let isAcknowledgement = machine.isAcknowledgement(messageID)
        perform(machine.acknowledgementReceived(messageID))
        return isAcknowledgement
    }

    /// The outbox row of the waiting request that a frame naming `inReplyTo` answers.
    func requestAnswered(by inReplyTo: String) -> Int64? {
        machine.requestAnswered(by: inReplyTo)
    }

    /// A batch was committed: its replies are in their requests' rows now.
    func committed(_ batch: [Push]) {
        eventLoop.assertInEventLoop()
        for push in batch where push.answersRequest != nil {
            if let messageID = push.inReplyTo { perform(machine.replyCommitted(requestID: messageID)) }
            if let row = push.answersRequest { resolveWaiters(of: row, with: .replied(push.text)) }
        }
    }

    /// How a request ended, for a caller that waits for it.
    enum RequestOutcome: Sendable, Equatable {
        case replied(String)
        case expired
    }

    /// A message in its row, committed; a request's `reply` completes when it is replied
    /// (committed) or expired.
    struct QueuedMessage: Sendable {
        var row: Int64
        var reply: EventLoopFuture<RequestOutcome>?
    }

    /// Completes when the request in `row` is replied (committed) or expired. Called as its
    /// queueing commits, in the same turn of the loop: before any reply can have been read.
    private func awaitReply(row: Int64) -> EventLoopFuture<RequestOutcome> {
        let promise = eventLoop.makePromise(of: RequestOutcome.self)
        replyWaiters[row, default: []].append(promise)
        return promise.futureResult
    }

    /// A caller stopped waiting (its connection closed): its wait ends; the request stays.
    func stopAwaiting(row: Int64) {
        eventLoop.assertInEventLoop()
        resolveWaiters(of: row, with: .expired)
    }

    private func resolveWaiters(of row: Int64, with outcome: RequestOutcome) {
        guard let waiters = replyWaiters.removeValue(forKey: row) else { return }
        for waiter in waiters { waiter.succeed(outcome) }
    }

    // MARK: The local API

    /// Queues `submission` in the next enqueue transaction; its result comes once committed.
    func queue(_ submission: OutboxSubmission) -> EventLoopFuture<Result<QueuedMessage, OutboxRefusal>> {
        eventLoop.assertInEventLoop()
        let promise = eventLoop.makePromise(of: Result<QueuedMessage, OutboxRefusal>.self)
        submissions.received((submission, promise))
        enqueueWaiting()
        return promise.futureResult
    }

    /// Marks `ids` (all unread when `nil`) read for `viewer` and queues the receipts, then sends
    /// them.
    func markRead(ids: [Int64]?, for viewer: Viewer) -> EventLoopFuture<NotificationMarker.Outcome> {
        eventLoop.assertInEventLoop()
        return storeWorker.markRead(ids: ids, for: viewer, receipts: settings.receipts, on: eventLoop).hop(to: eventLoop).map { outcome in
            if outcome.receipts > 0 { self.messagesQueued(earliestDeadline: self.settings.receipts?.timeToLive.map { WallClock.nowMilliseconds() + $0 }) }
            return outcome
        }
    }

    /// Rows may have been queued by someone else (the CLI, writing while no daemon answered).
    func wake() {
        eventLoop.assertInEventLoop()
        perform(machine.messagesQueued())
        expireDue()  // also finds the new rows' deadlines
    }

    private func enqueueWaiting() {
        guard let batch = submissions.nextBatch() else { return }
        storeWorker.enqueue(batch.map(\.0), on: eventLoop).hop(to: eventLoop).whenComplete { result in
            _ = self.submissions.written()
            switch result {
            case .success(let outcomes):
                for ((submission, promise), outcome) in zip(batch, outcomes) {
                    promise.succeed(outcome.map { row in
                        QueuedMessage(row: row, reply: submission.kind == .request ? self.awaitReply(row: row) : nil)
                    })
                }
                if outcomes.contains(where: { (try? $0.get()) != nil }) {
                    self.messagesQueued(earliestDeadline: batch.compactMap(\.0.expiresAt).min())
                }
            case .failure(let error):
                for (_, promise) in batch { promise.fail(error) }
            }
            self.enqueueWaiting()
        }
    }

    private func messagesQueued(earliestDeadline: Int64?) {
        if let earliestDeadline, expiryAt.map({ earliestDeadline < $0 }) ?? true {
            scheduleExpiry(at: earliestDeadline)
        }
        perform(machine.messagesQueued())
    }

    // MARK: Performing

    /// Performs what the outbox machine decided, in its order; the one place its actions happen.
    private func perform(_ actions: [OutboxStateMachine.Action]) {
        var load: OutboxStateMachine.Load?
        for action in actions {
            switch action {
            case .send(let entries):
                guard let sender, sender.sendUpstream(entries) else {
                    // Closing: what was not written goes on the next connection.
                    self.sender = nil
                    return perform(machine.connectionClosed())
                }
            case .recordSent(let rows):
                progress.received(contentsOf: rows.map(OutboxProgress.sent))
            case .recordDelivered(let rows):
                progress.received(contentsOf: rows.map(OutboxProgress.delivered))
            case .load(let next):
                load = next
            }
        }
        recordProgress()
        if let load {
            storeWorker.loadOutbox(after: load.after, limit: load.limit, on: eventLoop).hop(to: eventLoop)
                .whenComplete { result in
                    switch result {
                    case .success(let entries):
                        self.perform(self.machine.rowsLoaded(entries, limit: load.limit, generation: load.generation))
                    case .failure(let error):
                        // Dropped like a failed commit: the next connection loads from the start.
                        self.logger.error("cannot read the outbox; dropping the connection to start again", metadata: ["error": "\(error)"])
                        self.sender?.outboxFailed("cannot read the outbox: \(error)")
                    }
                }
        }
    }

    private func recordProgress() {
        guard let batch = progress.nextBatch() else { return }
        let (sent, delivered) = OutboxProgress.split(batch)
        storeWorker.recordOutboxProgress(sent: sent, delivered: delivered, on: eventLoop).hop(to: eventLoop)
            .whenComplete { result in
                _ = self.progress.written()
                if case .failure(let error) = result {
                    // Delivered but not recorded: sent again after the next reconnect (at least once).
                    self.logger.warning("cannot record messages as sent or delivered", metadata: ["error": "\(error)"])
                }
                self.recordProgress()
            }
    }

    // MARK: Expiry

    private func scheduleExpiry(at deadline: Int64?) {
        expiryTimer?.cancel()
        expiryTimer = nil
        expiryAt = deadline
        guard let deadline else { return }
        let delay = min(max(0, deadline - WallClock.nowMilliseconds()), Self.longestExpirySleep)
        expiryTimer = eventLoop.scheduleTask(in: .milliseconds(delay)) { self.expireDue() }
    }

    private func expireDue() {
        storeWorker.expireOutbox(on: eventLoop).hop(to: eventLoop).whenComplete { result in
            switch result {
            case .success(let (expired, nextExpiry)):
                // One entry each, up to a few: a week's backlog expiring at once is one line more.
                for row in expired.prefix(Self.expiriesLoggedEach) {
                    self.logger.warning(
                        "message \(row.messageID) to the server expired undelivered or unanswered; it is not sent again",
                        metadata: .event(.outboxGivenUp, ["message_id": row.messageID, "outbox_row": "\(row.rowID)"]))
                }
                if expired.count > Self.expiriesLoggedEach {
                    self.logger.warning(
                        "\(expired.count - Self.expiriesLoggedEach) more messages to the server expired undelivered or unanswered",
                        metadata: .event(.outboxGivenUp, ["count": "\(expired.count - Self.expiriesLoggedEach)"]))
                }
                self.perform(self.machine.rowsExpired(expired))
                for row in expired { self.resolveWaiters(of: row.rowID, with: .expired) }
                self.scheduleExpiry(at: nextExpiry)
            case .failure(let error):
                self.logger.warning("cannot expire old messages to the server; trying again in a minute", metadata: ["error": "\(error)"])
                self.scheduleExpiry(at: WallClock.nowMilliseconds() + 60_000)
            }
        }
    }
}

/// A row to record: written to the server, or acknowledged by it.
enum OutboxProgress: Equatable, Sendable {
    case sent(Int64)
    case delivered(Int64)

    /// The rows of a batch, sent and delivered apart, each in order.
    static func split(_ batch: [OutboxProgress]) -> (sent: [Int64], delivered: [Int64]) {
        var sent: [Int64] = []
        var delivered: [Int64] = []
        for item in batch {
            switch item {
            case .sent(let row): sent.append(row)
            case .delivered(let row): delivered.append(row)
            }
        }
        return (sent, delivered)
    }
}
