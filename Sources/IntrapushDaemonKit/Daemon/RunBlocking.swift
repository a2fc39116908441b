// SPDX-License-Identifier: Apache-2.0

import Dispatch
import NIOCore
import Synchronization

/// Runs `body` as a task on `eventLoop`'s thread and blocks the calling (main) thread until it
/// ends.
///
/// Not an `async` main: its task starts on Swift's global pool, libdispatch's on Linux, and the
/// first worker thread arms libdispatch's pool monitor, a timer that then wakes the process
/// every second for as long as it lives. A task that starts on the event loop and never leaves
/// it starts no worker thread at all.
func runBlocking(on eventLoop: any EventLoop, _ body: @escaping @Sendable () async throws -> Void) throws {
    final class Outcome: Sendable {
        let result = Mutex<Result<Void, any Error>>(.success(()))
    }
    let outcome = Outcome()
    let finished = DispatchSemaphore(value: 0)
    Task(executorPreference: EventLoopTaskExecutor(eventLoop: eventLoop)) {
        do {
            try await body()
        } catch {
            outcome.result.withLock { $0 = .failure(error) }
        }
        finished.signal()
    }
    finished.wait()
    try outcome.result.withLock { $0 }.get()
}
