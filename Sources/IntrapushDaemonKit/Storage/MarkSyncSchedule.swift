// SPDX-License-Identifier: Apache-2.0

import NIOCore

/// When the slices of the local API's marks, committed without SQLite's sync, are made durable.
///
/// A push is synced in its commit, and that sync carries every commit of the log before it to
/// the disk. So while pushes flow, a slice written between two of them waits for the next push's
/// sync and adds no sync of its own: a sync of the slice's beside the loop, in flight when a push
/// commits, would make the push's sync wait behind it, and at a steady flow of pushes some of
/// them always would. When no push came lately (`flowWindow`), or none comes within `rideFor`,
/// the slice is synced beside the loop as a burst's batch is. Slices written while a sync runs
/// wait for the next, which carries them all.
///
/// Commits are known by their number in the store (`NotificationStore.commitsWritten`): a sync
/// that began after commit `n` was written makes commits up to `n` durable.
///
/// Pure: the shell (`LocalMarks`) reports what was written and synced, and arms the timer and
/// starts the sync it is told to.
struct MarkSyncSchedule {
    enum Action: Equatable {
        /// Report `waitEnded(for:at:)` with this commit at this deadline.
        case armTimer(commit: Int, at: NIODeadline)
        /// Sync the log beside the loop; report `synced(through:)` with this commit when done.
        case syncBeside(through: Int)
        /// Every slice committed up to `through` is durable: its marks may be answered, its
        /// receipts sent.
        case durable(through: Int)
    }

    /// How long a slice waits for a push's sync before it is synced beside the loop.
    let rideFor: TimeAmount
    /// Pushes synced within this long before a slice was written are a flow it can wait for.
    let flowWindow: TimeAmount

    /// The newest slice's commit written and not yet durable.
    private var waiting: Int?
    /// Commits up to this one are durable.
    private var durableThrough = 0
    /// A sync beside the loop is running (one at a time), and whether a slice waits for another.
    private var isSyncingBeside = false
    private var needsSyncBeside = false
    private var lastPushSynced: NIODeadline?

    init(rideFor: TimeAmount, flowWindow: TimeAmount) {
        self.rideFor = rideFor
        self.flowWindow = flowWindow
    }

    /// Whether pushes were synced lately: a slice then stays short, and rides on their syncs.
    func pushesFlow(at now: NIODeadline) -> Bool {
        lastPushSynced.map { now - $0 <= flowWindow } ?? false
    }

    /// A slice was committed as `commit` (the store's count of commits after it, the same as
    /// before when it changed nothing).
    mutating func sliceWritten(commit: Int, at now: NIODeadline) -> [Action] {
        guard commit > durableThrough else { return [.durable(through: durableThrough)] }
        waiting = commit
        if let lastPushSynced, now - lastPushSynced <= flowWindow {
            return [.armTimer(commit: commit, at: now + rideFor)]
        }
        return syncBeside()
    }

    /// A push's commit was synced, carrying every commit up to `commit` (its own included).
    mutating func pushSynced(through commit: Int, at now: NIODeadline) -> [Action] {
        lastPushSynced = now
        return durable(through: commit)
    }

    /// The sync beside the loop that this schedule asked for returned.
    mutating func synced(through commit: Int) -> [Action] {
        isSyncingBeside = false
        var actions = durable(through: commit)
        if waiting != nil, needsSyncBeside { actions += syncBeside() }
        return actions
    }

    /// The timer armed for `commit` went off.
    mutating func waitEnded(for commit: Int, at now: NIODeadline) -> [Action] {
        guard waiting == commit else { return [] }
        return syncBeside()
    }

    private mutating func durable(through commit: Int) -> [Action] {
        guard commit > durableThrough else { return [] }
        durableThrough = commit
        if let waiting, waiting <= durableThrough {
            self.waiting = nil
            needsSyncBeside = false
        }
        return [.durable(through: durableThrough)]
    }

    private mutating func syncBeside() -> [Action] {
        guard let waiting else { return [] }
        guard !isSyncingBeside else {
            needsSyncBeside = true
            return []
        }
        isSyncingBeside = true
        needsSyncBeside = false
        return [.syncBeside(through: waiting)]
    }
}
