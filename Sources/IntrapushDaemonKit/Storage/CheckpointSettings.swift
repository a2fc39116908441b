// SPDX-License-Identifier: Apache-2.0

/// How the write-ahead log is copied back into the database file: by the `Checkpointer`, past
/// `threshold` frames not yet copied, or, when it does not run, by SQLite inside the commits.
/// Only the power-cut test changes the defaults (`Daemon`'s test switches).
struct CheckpointSettings: Sendable, Equatable {
    /// Frames not yet copied that start a copy; without the checkpointer, the WAL's length in
    /// pages past which SQLite checkpoints inside a commit.
    var threshold = CheckpointSchedule.defaultThreshold
    /// `false`: no checkpointer, exactly as when its connection cannot be opened.
    var startsCheckpointer = true
}
