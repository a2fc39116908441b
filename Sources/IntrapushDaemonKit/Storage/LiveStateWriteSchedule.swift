// SPDX-License-Identifier: Apache-2.0

import NIOCore

/// When a commit of pushes rewrites the live-state row as well. The row is what `intrapush
/// status` reads when the daemon does not answer; the daemon's own answers (`Status`, metrics,
/// the status line) come from memory. So the row may trail the commits by up to `interval`:
/// rewritten in every commit, it was most of what a push's commit cost beyond its own row, for
/// a figure nobody reads while the daemon runs. A burst's last counts reach it by a write after
/// the burst, and the way out writes it too.
struct LiveStateWriteSchedule {
    static let interval: TimeAmount = .seconds(1)

    private var lastWrittenAt: NIODeadline?
    private var isLaterWriteScheduled = false

    enum Decision: Equatable {
        /// Write the row in this commit's transaction.
        case writeInCommit
        /// Leave it out, and schedule a write of the row at this time.
        case writeLater(NIODeadline)
        /// Leave it out; a write already scheduled will carry it.
        case leaveOut
    }

    /// A commit of pushes is starting at `now`.
    mutating func commitStarting(at now: NIODeadline) -> Decision {
        guard let lastWrittenAt, now - lastWrittenAt < Self.interval else {
            self.lastWrittenAt = now
            return .writeInCommit
        }
        guard !isLaterWriteScheduled else { return .leaveOut }
        isLaterWriteScheduled = true
        return .writeLater(lastWrittenAt + Self.interval)
    }

    /// The scheduled write is starting, or any other write of the row (the session's changes).
    mutating func written(at now: NIODeadline, wasScheduled: Bool = false) {
        lastWrittenAt = now
        if wasScheduled { isLaterWriteScheduled = false }
    }
}
