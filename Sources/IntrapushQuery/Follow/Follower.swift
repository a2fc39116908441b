// SPDX-License-Identifier: Apache-2.0

import IntrapushInterface
/// `intrapush follow`: prints each notification as soon as the daemon has committed it.
///
/// inotify reports the daemon's write to the WAL, but a reader sees the rows only once the daemon
/// has also fsynced and published the new WAL index in shared memory, which makes no inotify event.
/// So after each change the follower looks again a few times, quickly at first
/// (`recheckDelays`): a commit shows within tens of milliseconds, and the follower is idle, with
/// no timer, between notifications.
package struct Follower {
    /// Milliseconds to wait before each extra look after a change; they add up to about 1 s.
    static let recheckDelays: [Int32] = [5, 20, 75, 250, 650]
    /// Rows read per query, so that a burst of a million is printed in bounded memory.
    static let batchSize = 1000

    let reader: NotificationReader
    let watcher: DatabaseChangeWatcher

    package init(reader: NotificationReader, watcher: DatabaseChangeWatcher) {
        self.reader = reader
        self.watcher = watcher
    }

    /// Why `run` returned.
    package enum Ending: Sendable, Equatable {
        case stopRequested
        case outputClosed
    }

    /// Prints the `backlog` newest notifications, then every new one, until a stop signal or the
    /// output closes.
    ///
    /// - Parameter emit: writes the records, oldest first; returns `false` when the output is gone.
    package func run(backlog: Int, emit: ([NotificationRecord]) -> Bool) throws -> Ending {
        var lastID = try reader.latestID()
        if backlog > 0 {
            let newest = try reader.records(NotificationQuery(limit: backlog, order: .newestFirstReversed))
            guard emit(newest) else { return .outputClosed }
            // A row committed between the two reads is in the backlog already: not again.
            lastID = max(lastID, newest.last?.id ?? 0)
        }
        var pendingRechecks = ArraySlice<Int32>()
        while true {
            switch watcher.wait(timeoutMilliseconds: pendingRechecks.first) {
            case .stopRequested:
                return .stopRequested
            case .outputClosed:
                return .outputClosed
            case .databaseChanged:
                pendingRechecks = Self.recheckDelays[...]
            case .timedOut, .descriptorReady:
                pendingRechecks = pendingRechecks.dropFirst()
            }
            while true {
                let records = try reader.notifications(after: lastID, limit: Self.batchSize)
                guard let last = records.last else { break }
                guard emit(records) else { return .outputClosed }
                lastID = last.id
                if records.count < Self.batchSize { break }
            }
        }
    }
}
