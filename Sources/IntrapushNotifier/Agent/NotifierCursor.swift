// SPDX-License-Identifier: Apache-2.0

/// What the agent must remember between runs: how far it has shown, and the marks the person made
/// that the daemon has not taken yet (it was stopped). One owner: `NotifierMachine`.
package struct NotifierCursor: Sendable, Equatable {
    /// The highest notification id shown or passed over; 0 before the first run.
    package var lastShownID: Int64 = 0
    /// Ids marked read on the desktop, waiting for the daemon, oldest first.
    package var unsentReads: [Int64] = []

    /// Marks kept for a daemon that is away; beyond it the oldest are forgotten.
    package static let unsentReadsLimit = 10_000

    package init(lastShownID: Int64 = 0, unsentReads: [Int64] = []) {
        self.lastShownID = lastShownID
        self.unsentReads = unsentReads
    }

    /// The state file's text; `database` names the file the ids belong to.
    package func text(database: String) -> String {
        "# intrapush-notifier: the last notification shown, and marks waiting for intrapushd\n"
            + "database=\(database)\nlast_shown=\(lastShownID)\n"
            + "unsent_reads=\(unsentReads.map(String.init).joined(separator: " "))\n"
    }

    /// The cursor in a state file's text; a fresh one when it is of another database or unreadable.
    package static func parse(_ text: String, database: String) -> NotifierCursor {
        var cursor = NotifierCursor()
        var sameDatabase = false
        for line in text.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            let value = line[line.index(after: equals)...]
            switch line[..<equals] {
            case "database": sameDatabase = value == database
            case "last_shown": cursor.lastShownID = Int64(value).map { max(0, $0) } ?? 0
            case "unsent_reads":
                cursor.unsentReads = Array(value.split(separator: " ").compactMap { Int64($0) }.suffix(unsentReadsLimit))
            default: continue
            }
        }
        return sameDatabase ? cursor : NotifierCursor()
    }
}
