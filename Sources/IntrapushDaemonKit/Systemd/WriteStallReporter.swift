// SPDX-License-Identifier: Apache-2.0

import Logging
import NIOConcurrencyHelpers
import NIOCore

/// Says that a database write does not finish, from the local API's loop: the push loop, which
/// runs every write, is the one waiting. The status line shows it from a second on (the live
/// state already does, for `Status` and the metrics), the journal from `loggedAfter`, and a
/// line follows when the write finishes.
///
/// It looks only while writes are under way: work reaching an idle writer starts a check a
/// second later, which goes on each second while work waits; an idle daemon has no timer here.
final class WriteStallReporter: Sendable {
    static let checkEvery: TimeAmount = .seconds(1)
    /// A write this long is no slow disk any more: the journal says so, once per stall.
    static let loggedAfter: Duration = .seconds(5)

    private let storeWorker: StoreWorker
    private let eventLoop: any EventLoop
    private let notifier: SystemdNotifier
    private let logger: Logger
    /// The status line is the session's again.
    private let stallEnded: @Sendable () -> Void
    private let state = NIOLockedValueBox(State())

    private struct State {
        var isChecking = false
        /// The stall being reported: how long it had run when last seen, and whether it was logged.
        var stall: (seen: Duration, isLogged: Bool)?
    }

    init(
        storeWorker: StoreWorker, eventLoop: any EventLoop, notifier: SystemdNotifier, logger: Logger,
        stallEnded: @escaping @Sendable () -> Void
    ) {
        self.storeWorker = storeWorker
        self.eventLoop = eventLoop
        self.notifier = notifier
        self.logger = logger
        self.stallEnded = stallEnded
    }

    /// From now on, writes are watched (the writer keeps the reporter).
    func start() {
        storeWorker.executor.onBecameBusy { self.checkSoon() }
    }

    /// Called on the writing thread: one check on the way is enough.
    private func checkSoon() {
        let isNew = state.withLockedValue { state in
            defer { state.isChecking = true }
            return !state.isChecking
        }
        guard isNew else { return }
        eventLoop.scheduleTask(in: Self.checkEvery) { self.check() }
    }

    private func check() {
        if let stalled = storeWorker.stalledFor, stalled >= StoreWorker.stallReportedAfter {
            report(stalled)
            eventLoop.scheduleTask(in: Self.checkEvery) { self.check() }
            return
        }
        let ended = state.withLockedValue { state in
            defer {
                state.stall = nil
                state.isChecking = false
            }
            return state.stall
        }
        if let ended {
            if ended.isLogged {
                logger.notice("the database write finished after about \(ended.seen.components.seconds + 1) s; pushes are acknowledged again")
            }
            stallEnded()
        }
        // Work that came while this check was ending started no check of its own.
        if !storeWorker.executor.isIdle { checkSoon() }
    }

    private func report(_ stalled: Duration) {
        let seconds = Int(stalled.components.seconds)
        let isNewlyLogged = state.withLockedValue { state in
            let wasLogged = state.stall?.isLogged ?? false
            let isLogged = wasLogged || stalled >= Self.loggedAfter
            state.stall = (stalled, isLogged)
            return isLogged && !wasLogged
        }
        notifier.status("a database write has not finished for \(seconds) s; pushes wait unacknowledged (is the disk stuck?)")
        if isNewlyLogged {
            logger.warning(
                "a database write has been running for \(seconds) s without finishing; the pushes read meanwhile are held unacknowledged until it does: check the disk",
                metadata: .event(.commitStalled, ["seconds": "\(seconds)"]))
        }
    }
}
