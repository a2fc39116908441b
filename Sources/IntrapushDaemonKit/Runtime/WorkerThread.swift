// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif
import NIOConcurrencyHelpers
import NIOCore

/// One thread of the daemon's own that runs the work handed to it, in order: the query thread,
/// the sync thread, the checkpointer, the hooks' and the metrics' threads.
///
/// Not NIO's `NIOThreadPool`: its shutdown goes through libdispatch, whose first worker thread
/// asks the kernel for a higher priority than the daemon's (setpriority to -2 or -4). The unit
/// may not raise its priority, so libdispatch logged "Failed to set thread priority for worker
/// thread" at every stop, and its pool monitor would have woken the process every second from
/// then on. This thread ends by itself once the work queued before `shutdown` has run.
final class WorkerThread: Sendable {
    /// Whether the work runs, or is called only to be told that the thread has stopped.
    enum State: Sendable {
        case active
        case stopped
    }

    typealias Work = @Sendable (State) -> Void

    private let shared: Shared

    /// Starts the thread; `name` is what `ps -L` shows for it.
    init(name: ThreadName) {
        shared = Shared()
        let shared = self.shared
        let body = Box {
            name.apply()
            shared.run()
        }
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { argument in
            Unmanaged<Box>.fromOpaque(argument!).takeRetainedValue().body()
            return nil
        }, Unmanaged.passRetained(body).toOpaque())
        precondition(result == 0, "cannot start the thread \(name.rawValue): error \(result)")
        pthread_detach(thread)
    }

    /// Queues `work`; once the thread is stopping it is called at once, here, with `.stopped`.
    func submit(_ work: @escaping Work) {
        guard shared.enqueue(work) else { return work(.stopped) }
    }

    /// Queues `body`; its result completes on `eventLoop`, or fails with `Stopped` once the
    /// thread is stopping.
    func runIfActive<T: Sendable>(eventLoop: any EventLoop, _ body: @escaping @Sendable () throws -> T) -> EventLoopFuture<T> {
        let promise = eventLoop.makePromise(of: T.self)
        submit { state in
            guard case .active = state else { return promise.fail(Stopped()) }
            promise.completeWith(Result { try body() })
        }
        return promise.futureResult
    }

    /// Lets the work queued so far run, then ends the thread; returns once it has.
    func shutdown() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            shared.stop { continuation.resume() }
        }
    }

    /// Lets the work queued so far run, then ends the thread, without waiting for it: a thread
    /// whose work may block for long (a directory's look-up) must not hold a stop.
    func stopAfterQueuedWork() {
        shared.stop {}
    }

    /// Work handed to a thread that had stopped.
    struct Stopped: Error {}

    /// The thread's entry point, retained across pthread_create.
    private final class Box {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    /// The queue between the callers and the thread.
    private final class Shared: @unchecked Sendable {
        /// True while there is work, or a stop, for the thread to see.
        private let signal = ConditionLock(value: false)
        /// Under `signal`'s lock.
        private var queue: [Work] = []
        private var isStopping = false
        private var hasEnded = false
        private var whenStopped: [@Sendable () -> Void] = []

        func enqueue(_ work: @escaping Work) -> Bool {
            signal.lock()
            guard !isStopping else {
                signal.unlock()
                return false
            }
            queue.append(work)
            signal.unlock(withValue: true)
            return true
        }

        func stop(_ completion: @escaping @Sendable () -> Void) {
            signal.lock()
            guard !hasEnded else {
                signal.unlock()
                return completion()
            }
            isStopping = true
            whenStopped.append(completion)
            signal.unlock(withValue: true)
        }

        func run() {
            while true {
                signal.lock(whenValue: true)
                let work = queue
                queue = []
                let stopping = isStopping && work.isEmpty
                let completions = stopping ? whenStopped : []
                if stopping {
                    whenStopped = []
                    hasEnded = true
                }
                signal.unlock(withValue: isStopping && !stopping)
                for item in work { item(.active) }
                if stopping {
                    for completion in completions { completion() }
                    return
                }
            }
        }
    }
}
