// SPDX-License-Identifier: Apache-2.0

import IntrapushInterface
import ArgumentParser
import IntrapushQuery
import IntrapushSupport

struct FollowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "follow",
        abstract: "Print each new notification as soon as it is stored, until interrupted.",
        discussion: """
            An administrator's follow waits on inotify on the database, anyone else's on the \
            daemon's Subscribe; neither on a timer: a notification shows within a few tens of \
            milliseconds of its commit. Ends with status 0 on Ctrl-C (SIGINT), SIGTERM, or when \
            the reader of a pipe goes away.

            Examples:
              intrapush follow
              intrapush follow --lines 10
              intrapush follow --json | jq -r .title
            """
    )

    @OptionGroup var location: DatabaseOptions

    @Option(name: [.short, .long], help: ArgumentHelp("First print the n newest notifications.", valueName: "n"))
    var lines = 0

    @Flag(help: "Print JSON Lines instead of text.")
    var json = false

    func validate() throws {
        if lines < 0 { throw ValidationError("--lines must be 0 or more (was \(lines)).") }
    }

    func run() throws {
        let formatter = NotificationFormatter.forStandardOutput()
        let output = StandardOutput()
        var text = ""
        let access = try location.openAccess()
        if case .daemon(let socketPath) = access {
            try ReadAccess.follow(socketPath: socketPath, backlog: lines) { records in
                for record in records {
                    text.removeAll(keepingCapacity: true)
                    if json { record.appendJSONLine(to: &text) } else { text = formatter.followLine(record) + "\n" }
                    output.write(text)
                }
                return output.flush()
            }
            return
        }
        let reader = try location.openReader()
        let watcher = DatabaseChangeWatcher(databasePath: reader.path, outputDescriptor: 1)
        _ = try querying(reader) {
            try Follower(reader: reader, watcher: watcher).run(backlog: lines) { records in
                for record in records {
                    text.removeAll(keepingCapacity: true)
                    if json {
                        record.appendJSONLine(to: &text)
                    } else {
                        text = formatter.followLine(record) + "\n"
                    }
                    output.write(text)
                }
                return output.flush()
            }
        }
    }
}
