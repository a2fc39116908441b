// SPDX-License-Identifier: Apache-2.0

/// The database's `PRAGMA auto_vacuum` mode, which decides whether pruning can shrink the file.
///
/// intrapush creates new databases with `incremental`: after pruning, `reclaimFreePages` gives
/// freed pages back to the file system a few at a time. A database created before that has
/// `none`, and the mode can only change by a full `VACUUM`, which rewrites the whole file (seconds
/// for a million rows) and is never run at start, where READY must come within milliseconds.
/// Such a file stops growing instead: new notifications reuse the pages pruning frees.
package enum AutoVacuum: Int, Sendable {
    case none = 0
    case full = 1
    case incremental = 2

    /// For the daemon's log at start when the file cannot shrink (`nil` when it can): says what
    /// happens and how the operator converts the file once.
    package func notice(databasePath path: String) -> String? {
        guard self == .none else { return nil }
        return "the database \(path) was created without incremental vacuum: pruned space is reused "
            + "for new notifications, but the file does not shrink; to convert it once, stop intrapushd "
            + "and run: sqlite3 \(path) 'PRAGMA auto_vacuum = INCREMENTAL; VACUUM'"
    }
}
