// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import IntrapushQuery
import IntrapushInterface
import IntrapushSupport

struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Print every notification, oldest first, for other tools.",
        discussion: """
            json: JSON Lines, one object per notification with the same keys as list --json. \
            csv: a header row of the same keys in the same order \
            (id,message_id,received_at,title,body,payload,read_at,priority,link,recipients), then \
            RFC 4180 records with CRLF line ends.

            Examples:
              intrapush export --format csv > notifications.csv
              intrapush export --format json --since 2026-11-01 | gzip > november.jsonl.gz
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case json, csv
    }

    @OptionGroup var location: DatabaseOptions

    @Option(help: "json (JSON Lines) or csv.")
    var format: Format

    @OptionGroup var time: TimeRangeOptions

    func run() throws {
        let (since, until) = try time.bounds()
        let query = NotificationQuery(since: since, until: until, order: .oldestFirst)
        let access = try location.openAccess()
        let output = StandardOutput()
        var text = ""
        if format == .csv {
            CSVText.appendRecord(NotificationRecord.fieldNames, to: &text)
            output.write(text)
        }
        try access.forEach(query) { record in
            text.removeAll(keepingCapacity: true)
            switch format {
            case .json: record.appendJSONLine(to: &text)
            case .csv: record.appendCSVRecord(to: &text)
            }
            output.write(text)
        }
    }
}
