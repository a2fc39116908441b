// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import IntrapushSupport

struct CountCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "count",
        abstract: "Print how many notifications match.",
        discussion: """
            Examples:
              intrapush count
              intrapush count --unread
              intrapush count --since 7d --grep backup
            """
    )

    @OptionGroup var location: DatabaseOptions
    @OptionGroup var filter: FilterOptions

    func run() throws {
        let query = try filter.query()
        let count = try location.openAccess().count(query)
        let output = StandardOutput()
        output.write("\(count)\n")
    }
}
