// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import IntrapushQuery
import IntrapushSupport

struct ShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show one notification with its whole payload.",
        discussion: """
            Exits 1 when there is no notification with that id.

            Examples:
              intrapush show 42
              intrapush show 42 --json | jq .payload
            """
    )

    @OptionGroup var location: DatabaseOptions

    @Argument(help: ArgumentHelp("The notification's id (the first column of list).", valueName: "id"))
    var id: Int64

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    func run() throws {
        let access = try location.openAccess()
        guard let record = try access.notification(id: id) else {
            throw CommandFailure(.notFound, "no notification with id \(id) in \(access.location)")
        }
        let output = StandardOutput()
        if json {
            var line = ""
            record.appendJSONLine(to: &line)
            output.write(line)
            return
        }
        let formatter = NotificationFormatter.forStandardOutput(fitting: false)
        output.write(formatter.detail(record))
    }
}
