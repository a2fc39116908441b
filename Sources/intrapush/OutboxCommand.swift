// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import IntrapushQuery
import IntrapushStore
import IntrapushSupport

struct OutboxCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "outbox",
        abstract: "List the messages queued for the server, newest first, with their state.",
        discussion: """
            States: queued (stored, not yet written), sent (written, not yet acknowledged; sent \
            again after a reconnect), delivered (acknowledged by the server), replied (a request \
            with its reply), expired (not delivered or answered in time; never sent again).

            Examples:
              intrapush outbox
              intrapush outbox --state sent
              intrapush outbox --json --limit 0 | jq 'select(.kind == "request") | .reply'
            """
    )

    @OptionGroup var location: DatabaseOptions

    @Flag(help: "Print JSON Lines with every column, replies included.")
    var json = false

    @Option(help: ArgumentHelp("Only rows in this state: queued, sent, delivered, replied or expired.", valueName: "state"))
    var state: String?

    @Option(help: "At most this many rows (0 for all).")
    var limit = 20

    func validate() throws {
        if let state, OutboxState(rawValue: state) == nil {
            throw ValidationError("--state: expected queued, sent, delivered, replied or expired, not \"\(state)\"")
        }
        if limit < 0 { throw ValidationError("--limit must be 0 or more") }
    }

    func run() throws {
        let reader = try location.openReader()
        let records = try querying(reader) { try reader.outbox(state: state, limit: limit) }
        let output = StandardOutput()
        if json {
            var text = ""
            for record in records { record.appendJSONLine(to: &text) }
            output.write(text)
            return
        }
        let formatter = NotificationFormatter.forStandardOutput()
        for line in formatter.outboxLines(records) { output.write(line + "\n") }
    }
}
