import IntrapushStore

/// The bodies of `send`, `request` and `mark-read` and of their answers, each written by one side
/// and read by the other through the same pair of functions.
package enum ControlBodies {
    /// `send` and `request` answer with the queued row and the message's id.
    package static func queued(rowID: Int64, messageID: String) -> String { "\(rowID) \(messageID)" }

    package static func parseQueued(_ text: String) -> (rowID: Int64, messageID: String)? {
        let words = text.split(separator: " ", maxSplits: 1)
        guard words.count == 2, let rowID = Int64(words[0]) else { return nil }
        return (rowID, String(words[1]))
    }

    /// `mark-read`'s body: `all`, or the ids separated by spaces (read by `MarkReadList`).
    package static func markReadRequest(ids: [Int64]?) -> String {
        ids.map { $0.map(String.init).joined(separator: " ") } ?? "all"
    }

    /// `mark-read`'s answer: `MARKED ALREADY-READ RECEIPTS`, then a line of the missing ids.
    package static func markReadAnswer(_ outcome: NotificationMarker.Outcome) -> String {
        "\(outcome.marked) \(outcome.alreadyRead) \(outcome.receipts)\n" + outcome.missing.map(String.init).joined(separator: " ")
    }

    package static func parseMarkReadAnswer(_ text: String) -> NotificationMarker.Outcome? {
        let lines = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
        let counts = lines.first?.split(separator: " ").compactMap { Int($0) } ?? []
        guard counts.count == 3 else { return nil }
        let missing = lines.count > 1 ? lines[1].split(separator: " ").compactMap { Int64($0) } : []
        return NotificationMarker.Outcome(marked: counts[0], alreadyRead: counts[1], missing: missing, receipts: counts[2])
    }
}
