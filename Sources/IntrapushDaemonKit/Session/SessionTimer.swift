// SPDX-License-Identifier: Apache-2.0

import Synchronization

/// The session loop's one way to act later: after a delay, `due` reaches the loop as
/// `.timerFired`, unless the timer was cancelled before the loop took the event up (a newer timer
/// of the same purpose replaces it, or what it waited for happened another way). The check is
/// made on the loop when the event arrives, so an event already on its way is void as well.
final class SessionTimer: Sendable {
    enum Due: Sendable, Equatable {
        /// The backoff is over: dial again.
        case reconnect
        /// Still waiting for the network: look for a route again.
        case networkRecheck
        /// On a fallback: try the primary (`failback_interval`).
        case failback
        /// The second after a change of the counts is over: show them (`StatusRenewal`).
        case statusRenewal
        /// A turn of the loop for the watchdog when no heartbeat is due to make one.
        case watchdogFallback
    }

    let due: Due
    private let cancelled = Atomic(false)

    init(_ due: Due) {
        self.due = due
    }

    var isCancelled: Bool { cancelled.load(ordering: .relaxed) }

    func cancel() {
        cancelled.store(true, ordering: .relaxed)
    }
}

extension SessionLoop {
    /// Starts a timer: after `delay`, `.timerFired` with it.
    @discardableResult
    func schedule(_ due: SessionTimer.Due, after delay: Duration, tasks: inout DiscardingTaskGroup) -> SessionTimer {
        let timer = SessionTimer(due)
        let service = self.service
        tasks.addTask {
            do {
                try await service.clock.sleep(for: delay)
                service.send(.timerFired(timer))
            } catch {
                // Cancelled: the service is stopping.
            }
        }
        return timer
    }
}
