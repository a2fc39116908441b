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
            // Through the gate: the daemon's state, and the counts of what this user may see.
            let api = LocalAPI(socketPath: Configuration.controlSocket(forDatabase: found.path))
            let reply = try api.require("io.intrapush.Daemon.Status")
            guard let value = reply.parameters["state"], let state = LiveState(varlinkValue: value),
                let total = reply.parameters["notifications"]?.integer, let unread = reply.parameters["unread"]?.integer
            else { throw CommandFailure(.ioError, "the daemon's answer could not be read; is intrapush the same version as intrapushd?") }
            let report = StatusReport.told(state: state, notifications: total, unread: unread, path: found.path, now: WallClock.nowMilliseconds())
            output.write(json ? report.json() : report.text(useColor: Terminal.usesColor(1, environment: ProcessEnvironment.current)))
            return
        }
        let reader = try DatabaseOptions.openReader(at: found.path)
        let daemon = StatusReport.askDaemon(socketPath: Configuration.controlSocket(forDatabase: found.path))
        let report = try querying(reader) {
            try StatusReport.gather(reader: reader.database, now: WallClock.nowMilliseconds(), daemon: daemon)
        }
        output.write(json ? report.json() : report.text(useColor: Terminal.usesColor(1, environment: ProcessEnvironment.current)))
    }
}
