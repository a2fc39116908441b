// SPDX-License-Identifier: Apache-2.0

import IntrapushSupport
import NIOConcurrencyHelpers
import NIOCore
import ServiceLifecycle

/// Runs the daemon's tasks on its event loop thread instead of Swift's global pool.
///
/// On Linux the global pool is libdispatch's: its worker threads exit after 5 s idle, so every
/// heartbeat (10 s apart) started a new thread (`clone3`, `setpriority`, exit) only to hand an
/// event from the event loop to the session loop. The event loop thread lives as long as the
/// daemon; the session loop's work per event is small, and the store has its own thread.
final class EventLoopTaskExecutor: TaskExecutor {
    let eventLoop: any EventLoop

    init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }
}

/// A clock whose sleeps are timers of the event loop: a task preferring `EventLoopTaskExecutor`
/// wakes on that thread, where `ContinuousClock` would wake it through a libdispatch worker.
struct EventLoopClock: Clock {
    typealias Instant = ContinuousClock.Instant
    typealias Duration = Swift.Duration

    let eventLoop: any EventLoop

    init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    var now: Instant { .now }
    var minimumResolution: Duration { .microseconds(1) }

    func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let delay = max(.zero, deadline - .now)
        let timer = TimerBox()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let scheduled = eventLoop.scheduleTask(in: .nanoseconds(Int64(delay.nanoseconds))) {}
                scheduled.futureResult.whenComplete { result in
                    switch result {
                    case .success: continuation.resume()
                    case .failure: continuation.resume(throwing: CancellationError())
                    }
                }
                timer.set(scheduled)
            }
        } onCancel: {
            timer.cancel()
        }
    }
}

/// The scheduled timer, for a cancellation that may come from another thread before or after it
/// is set.
private final class TimerBox: Sendable {
    private let state = NIOLockedValueBox<(scheduled: Scheduled<Void>?, isCancelled: Bool)>((nil, false))

    func set(_ timer: Scheduled<Void>) {
        let cancelNow = state.withLockedValue { state in
            state.scheduled = timer
            return state.isCancelled
        }
        if cancelNow { timer.cancel() }
    }

    func cancel() {
        state.withLockedValue { state in
            state.isCancelled = true
            return state.scheduled
        }?.cancel()
    }
}

extension EventLoopClock {
    /// Runs `tick` every `interval` until the task is cancelled or the service group shuts down
    /// gracefully. A loop, not `AsyncTimerSequence(…).cancelOnGracefulShutdown()`: that merges
    /// its sequences in unstructured tasks of no executor preference (libdispatch workers).
    func every(_ interval: Duration, _ tick: @escaping @Sendable () async -> Void) async {
        let clock = self
        try? await cancellingOnGracefulShutdown(on: eventLoop) {
            var next = clock.now.advanced(by: interval)
            while true {
                try await clock.sleep(until: next)
                next = next.advanced(by: interval)
                await tick()
            }
        }
    }
}

/// Runs `operation` on `eventLoop` until it ends, the caller is cancelled, or the service group
/// shuts down gracefully (then it is cancelled). ServiceLifecycle's `cancelWhenGracefulShutdown`
/// does this with a `Task {}` of its own, which prefers no executor: each call started a
/// libdispatch worker, and the first worker arms libdispatch's pool monitor, a timer that wakes
/// the process every second from then on.
func cancellingOnGracefulShutdown<T: Sendable>(
    on eventLoop: any EventLoop, _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    let task = Task(executorPreference: EventLoopTaskExecutor(eventLoop: eventLoop)) { try await operation() }
    return try await withGracefulShutdownHandler {
        try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() }
    } onGracefulShutdown: {
        task.cancel()
    }
}

/// Returns once the service group shuts down gracefully or the task is cancelled.
/// ServiceLifecycle's `gracefulShutdown()` resumes its waiter through a `Task {}` of no executor
/// preference: a libdispatch worker at every stop, which asks for a priority the unit may not
/// take and logs that it could not.
func waitForGracefulShutdown() async {
    let waiter = OneShotWaiter()
    await withTaskCancellationHandler {
        await withGracefulShutdownHandler {
            await withCheckedContinuation { waiter.wait(with: $0) }
        } onGracefulShutdown: {
            waiter.resume()
        }
    } onCancel: {
        waiter.resume()
    }
}

/// A continuation resumed once, by whichever comes first: the resume or the wait (when the
/// resume came before it).
private final class OneShotWaiter: Sendable {
    private let state = NIOLockedValueBox<(continuation: CheckedContinuation<Void, Never>?, isResumed: Bool)>((nil, false))

    func wait(with continuation: CheckedContinuation<Void, Never>) {
        let resumeNow = state.withLockedValue { state in
            if state.isResumed { return true }
            state.continuation = continuation
            return false
        }
        if resumeNow { continuation.resume() }
    }

    func resume() {
        state.withLockedValue { state -> CheckedContinuation<Void, Never>? in
            guard !state.isResumed else { return nil }
            state.isResumed = true
            defer { state.continuation = nil }
            return state.continuation
        }?.resume()
    }
}
