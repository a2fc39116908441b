import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// The store's one thread (a one-thread `NIOThreadPool`), and whether work on it moves on
/// (`StoreProgress`), for the watchdog.
final class StoreThread: Sendable {
    private let pool = NIOThreadPool(numberOfThreads: 1)
    private let progress = NIOLockedValueBox(StoreProgress(at: .now))

    init() {
        pool.start()
        pool.submit { _ in ThreadName.store.apply() }
    }

    /// Runs `body` on the thread after everything submitted before; `isActive` is false when the
    /// thread is stopping (the body must then do nothing). Does not wait.
    func submit(_ body: @escaping @Sendable (_ isActive: Bool) -> Void) {
        progress.withLockedValue { $0.submitted(at: .now) }
        pool.submit { state in
            defer { self.progress.withLockedValue { $0.finished(at: .now) } }
            if case .active = state { body(true) } else { body(false) }
        }
    }

    func runIfActive<T: Sendable>(eventLoop: any EventLoop, _ body: @escaping @Sendable () throws -> T) -> EventLoopFuture<T> {
        let promise = eventLoop.makePromise(of: T.self)
        submit { isActive in
            guard isActive else { return promise.fail(NIOThreadPoolError.ThreadPoolInactive()) }
            promise.completeWith(Result { try body() })
        }
        return promise.futureResult
    }

    func runIfActive<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            submit { isActive in
                guard isActive else { return continuation.resume(throwing: NIOThreadPoolError.ThreadPoolInactive()) }
                continuation.resume(with: Result { try body() })
            }
        }
    }

    /// How long work has waited on the thread without any of it finishing; nil when none waits.
    var stalledFor: Duration? {
        progress.withLockedValue { $0.stalledFor(at: .now) }
    }

    func shutdownGracefully() async throws {
        try await pool.shutdownGracefully()
    }
}
