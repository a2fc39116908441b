// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import IntrapushConfiguration
import IntrapushQuery
import IntrapushInterface
import IntrapushStore
import IntrapushSupport

struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show what the daemon is doing: connected or not, since when, counters, database size.",
        discussion: """
            Asks intrapushd through its local API (the socket beside the database); when no daemon \
            answers, an administrator's reads the state it saved in the database. Works for root, \
            the administrators and everyone who may read or send; a reader's counts are of what is \
            addressed to them. Says plainly when the daemon is not running, or does not answer within 2 s. \
            Exits 0 whether or not the daemon is connected, 66 when there is no database.

            Examples:
              intrapush status
              intrapush status --json | jq .state
            """
    )

    @OptionGroup var location: DatabaseOptions

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    func run() throws {
        let found = try location.locate()
        let output = StandardOutput()
        guard AccessPolicy.currentProcessAdministers(databasePath: found.path) else {
            // Through the local API: the daemon's state, and the counts of what this user may see.
            let socketPath = Configuration.localAPISocket(forDatabase: found.path)
            guard let client = try LocalAPIClient.connectIfRunning(path: socketPath) else {
                throw CommandFailure(
                    .unavailable, "intrapushd is not running (nothing answers on \(socketPath)); ask an administrator to start it (sudo systemctl start intrapush)")
            }
            let reply: DaemonInterface.Status.Reply
            do { reply = try client.call(DaemonInterface.Status.self, .init(), timeout: .seconds(2)) } catch { throw error.commandFailure }
            let report = StatusReport.told(
                state: LiveState(reply.state), version: reply.version, notifications: reply.notifications, unread: reply.unread,
                path: found.path, now: WallClock.nowMilliseconds())
            output.write(json ? report.json() : report.text(useColor: Terminal.usesColor(1, environment: ProcessEnvironment.current)))
            return
        }
        let reader = try DatabaseOptions.openReader(at: found.path)
        let daemon = StatusReport.askDaemon(socketPath: Configuration.localAPISocket(forDatabase: found.path))
        let report = try querying(reader) {
            try StatusReport.gather(reader: reader.database, now: WallClock.nowMilliseconds(), daemon: daemon)
        }
        output.write(json ? report.json() : report.text(useColor: Terminal.usesColor(1, environment: ProcessEnvironment.current)))
    }
}
