// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import IntrapushQuery
import IntrapushSupport

struct MarkReadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mark-read",
        abstract: "Mark notifications read (sets read_at); queues read receipts when configured.",
        discussion: """
            Asks intrapushd to mark them, which members of its group may do; when it is not \
            running, marks them directly, which needs write access to the database. A notification \
            already read keeps its first read_at. With read_receipt_text set, each notification \
            newly read that has a message id queues one receipt for the server. Exits 1 when an id \
            does not exist (the others are still marked).

            Examples:
              intrapush mark-read 41 42
              intrapush mark-read --all
            """
    )

    @OptionGroup var location: DatabaseOptions

    @Argument(help: ArgumentHelp("The ids to mark.", valueName: "id"))
    var ids: [Int64] = []

    @Flag(help: "Mark every unread notification.")
    var all = false

    func validate() throws {
        if all && !ids.isEmpty { throw ValidationError("Give either ids or --all, not both.") }
        if !all && ids.isEmpty { throw ValidationError("Give the ids to mark read, or --all.") }
    }

    func run() throws {
        let writer = try location.writer()
        let (outcome, _) = try writer.markRead(ids: all ? nil : ids)
        let output = StandardOutput()
        var line = "marked \(outcome.marked) notification\(outcome.marked == 1 ? "" : "s") read"
        if outcome.alreadyRead > 0 { line += " (\(outcome.alreadyRead) already read)" }
        if outcome.receipts > 0 { line += "; \(outcome.receipts) read receipt\(outcome.receipts == 1 ? "" : "s") queued" }
        output.write(line + "\n")
        if !outcome.missing.isEmpty {
            output.flush()
            let list = outcome.missing.map(String.init).joined(separator: ", ")
            throw CommandFailure(.notFound, "no notification with id \(list) in \(writer.databasePath)")
        }
    }
}
