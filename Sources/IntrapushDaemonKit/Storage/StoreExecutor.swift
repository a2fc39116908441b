// SPDX-License-Identifier: Apache-2.0

import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// Where every write to the database runs: the push connection's event loop, so that a push is
/// committed on the thread that read it and acknowledged with no hop (SQLite has one writer; the
/// outbox's, the live state's and retention's writes are tasks queued between the commits).
/// Keeps whether work on it moves on (`StoreProgress`) for the status, `Status` and metrics,
/// read from other threads without waking this one.
final class StoreExecutor: Sendable {
    let eventLoop: any EventLoop
    private let progress = NIOLockedValueBox(Progress(at: .now))

    private struct Progress {
        var store: StoreProgress
        var isStopping = false
        /// Told, on the thread handing work over, when work arrives at an idle executor
        /// (`WriteStallReporter` starts watching then).
        var becameBusy: (@Sendable () -> Void)?
        init(at now: ContinuousClock.Instant) { store = StoreProgress(at: now) }

        /// Work arrived (`change`): the observer to tell when it found the writer idle.
        mutating func arrived(_ change: (inout StoreProgress) -> Void) -> (@Sendable () -> Void)? {
            let wasIdle = store.isIdle
            change(&store)
            return wasIdle ? becameBusy : nil
        }
    }

    /// The daemon is stopping: nothing more is written.
    struct Stopped: Error, CustomStringConvertible {
        var description: String { "the daemon is stopping; nothing more is written" }
    }

    init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    /// Calls `observer` whenever work arrives while none waited.
    func onBecameBusy(_ observer: @escaping @Sendable () -> Void) {
        progress.withLockedValue { $0.becameBusy = observer }
    }

    /// Runs `body` on the loop after everything queued before; `isActive` is false once the
    /// executor is stopping (the body must then do nothing). Does not wait.
    func submit(_ body: @escaping @Sendable (_ isActive: Bool) -> Void) {
        guard started() else { return body(false) }
        eventLoop.execute {
            let isActive = !self.progress.withLockedValue { $0.isStopping }
            defer { self.finished() }
            body(isActive)
        }
    }

    /// `submit`, after `delay` on the loop's timer: the loop runs every task queued, those
    /// queued meanwhile too, before it reads its sockets again, so work that queues its own next
    /// part (the local API's marks, slice after slice) would hold the pushes back; a timer lets
    /// what the sockets brought in between.
    func submit(after delay: TimeAmount, _ body: @escaping @Sendable (_ isActive: Bool) -> Void) {
        guard started() else { return body(false) }
        eventLoop.scheduleTask(in: delay) {
            let isActive = !self.progress.withLockedValue { $0.isStopping }
            defer { self.finished() }
            body(isActive)
        }
    }

    /// Runs `body` now, on the loop (the caller is on it): a push's commit, with no hop.
    func runNow<T>(_ body: () throws -> T) throws -> T {
        eventLoop.preconditionInEventLoop()
        guard started() else { throw Stopped() }
        defer { finished() }
        return try body()
    }

    /// Queues `body` (`submit`); its result completes on `eventLoop`, or fails with `Stopped`.
    func runIfActive<T: Sendable>(eventLoop: any EventLoop, _ body: @escaping @Sendable () throws -> T) -> EventLoopFuture<T> {
        let promise = eventLoop.makePromise(of: T.self)
        submit { isActive in
            guard isActive else { return promise.fail(Stopped()) }
            promise.completeWith(Result { try body() })
        }
        return promise.futureResult
    }

    /// The same, awaited.
    func runIfActive<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            submit { isActive in
                guard isActive else { return continuation.resume(throwing: Stopped()) }
                continuation.resume(with: Result { try body() })
            }
        }
    }

    /// Runs `body` on `thread` while the loop goes on (a committed batch's sync), counted as the
    /// store's work so that a sync that hangs is reported; its result completes on the loop.
    /// One at a time: the push connection has one commit in flight.
    func runBeside<T: Sendable>(on thread: WorkerThread, _ body: @escaping @Sendable () throws -> T) -> EventLoopFuture<T> {
        progress.withLockedValue { $0.arrived { $0.syncBesideStarted(at: .now) } }?()
        let promise = eventLoop.makePromise(of: T.self)
        thread.submit { state in
            defer { self.progress.withLockedValue { $0.store.syncBesideFinished(at: .now) } }
            guard case .active = state else { return promise.fail(Stopped()) }
            promise.completeWith(Result { try body() })
        }
        return promise.futureResult
    }

    /// How long work has waited or run without any of it finishing; nil when none waits.
    var stalledFor: Duration? {
        progress.withLockedValue { $0.store.stalledFor(at: .now) }
    }

    /// Nothing is queued or running.
    var isIdle: Bool { progress.withLockedValue { $0.store.isIdle } }

    /// What is queued runs with `isActive` false, and nothing runs after; waits for that.
    func stop() async {
        progress.withLockedValue { $0.isStopping = true }
        try? await eventLoop.submit {}.get()
    }

    /// Counts work handed over; false once stopping.
    private func started() -> Bool {
        let (isStopping, observer) = progress.withLockedValue { progress -> (Bool, (@Sendable () -> Void)?) in
            if progress.isStopping { return (true, nil) }
            return (false, progress.arrived { $0.submitted(at: .now) })
        }
        observer?()
        return !isStopping
    }

    private func finished() {
        progress.withLockedValue { $0.store.finished(at: .now) }
    }
}
