// SPDX-License-Identifier: Apache-2.0

import IntrapushInterface
import IntrapushStore
import IntrapushSupport

/// Waits, without polling, for the row of a request the CLI wrote itself (no daemon answered)
/// to be replied or expired: `intrapush request`.
///
/// Reads the row again whenever the database changes (inotify, as `follow` does, with its
/// rechecks). The daemon
/// expires the request at its deadline; if no daemon does (none runs), the waiter gives up a
/// moment after the deadline by itself.
package struct OutboxRowWatcher {
    package enum Outcome: Equatable {
        case replied(String)
        case expired
        case interrupted
    }

    let databasePath: String
    /// How long after the deadline the waiter gives up when the row was not marked expired.
    static let grace: Int64 = 2000

    package init(databasePath: String) {
        self.databasePath = databasePath
    }

    package func wait(forRow rowID: Int64, timeout: Duration) throws(CommandFailure) -> Outcome {
        let watcher = DatabaseChangeWatcher(databasePath: databasePath, outputDescriptor: -1)
        let giveUpAt = WallClock.nowMilliseconds() + timeout.milliseconds + Self.grace
        let connection: SQLiteConnection
        let select: Statement
        do {
            connection = try SQLiteConnection(path: databasePath, mode: .readOnly)
            select = try connection.prepare("SELECT state, reply FROM outbox WHERE id = ?")
        } catch {
            throw CommandFailure.database(error, path: databasePath)
        }
        // A change wakes us when the daemon writes the WAL, which may be a moment before the
        // commit shows to readers: look again a few times after each (as `Follower` does).
        var pendingRechecks = Follower.recheckDelays[...]
        while true {
            do {
                defer { select.reset() }
                try select.bind(rowID, at: 1)
                guard try select.step() else { return .expired }  // pruned: long gone
                switch select.string(at: 0) {
                case "replied": return .replied(select.string(at: 1) ?? "")
                case "expired": return .expired
                default: break
                }
            } catch {
                throw CommandFailure.database(error, path: databasePath)
            }
            let remaining = giveUpAt - WallClock.nowMilliseconds()
            guard remaining > 0 else { return .expired }
            let timeout = min(remaining, Int64(pendingRechecks.first ?? Int32.max))
            switch watcher.wait(timeoutMilliseconds: Int32(timeout)) {
            case .stopRequested: return .interrupted
            case .databaseChanged: pendingRechecks = Follower.recheckDelays[...]
            case .timedOut, .outputClosed, .descriptorReady: pendingRechecks = pendingRechecks.dropFirst()
            }
        }
    }
}
