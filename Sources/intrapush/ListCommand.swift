// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import IntrapushQuery
import IntrapushInterface
import IntrapushSupport

struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List notifications, newest first.",
        discussion: """
            Unread notifications are marked with *. With --json, one JSON object per line with the keys \
            id, message_id, received_at, title, body, payload, read_at (times as 2026-11-22T01:02:03.456Z).

            Examples:
              intrapush list
              intrapush list --unread --since 2h
              intrapush list --grep disk --limit 0 --json | jq -r .title
              intrapush list --since 2026-11-01 --until 2026-11-02 --reverse
            """
    )

    @OptionGroup var location: DatabaseOptions
    @OptionGroup var filter: FilterOptions

    @Option(name: [.customShort("n"), .long], help: ArgumentHelp("How many to show; 0 for all.", valueName: "n"))
    var limit = 20

    @Flag(name: [.short, .long], help: "Print the selected notifications oldest first.")
    var reverse = false

    @Flag(help: "Print JSON Lines instead of a table.")
    var json = false

    func validate() throws {
        if limit < 0 { throw ValidationError("--limit must be 0 (all) or more (was \(limit)).") }
    }

    func run() throws {
        let query = try filter.query(limit: limit == 0 ? nil : limit, order: reverse ? .newestFirstReversed : .newestFirst)
        let access = try location.openAccess()
        let output = StandardOutput()
        if json {
            var line = ""
            try access.forEach(query) { record in
                line.removeAll(keepingCapacity: true)
                record.appendJSONLine(to: &line)
                output.write(line)
            }
            return
        }
        let formatter = NotificationFormatter.forStandardOutput()
        // The table is laid out a screenful of rows at a time, so that `--limit 0` over a million
        // rows streams in bounded memory; an empty result prints nothing, like ls.
        var chunk: [NotificationRecord] = []
        var isFirstChunk = true
        func printChunk() {
            guard !chunk.isEmpty else { return }
            let lines = formatter.tableLines(chunk)
            for line in lines.dropFirst(isFirstChunk ? 0 : 1) { output.write(line + "\n") }
            isFirstChunk = false
            chunk.removeAll(keepingCapacity: true)
        }
        try access.forEach(query) { record in
            chunk.append(record)
            if chunk.count == 1000 { printChunk() }
        }
        printChunk()
    }
}
