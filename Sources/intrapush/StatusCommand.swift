import ArgumentParser
import IntrapushConfiguration
import IntrapushQuery
import IntrapushInterface
import IntrapushSupport

struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show what the daemon is doing: connected or not, since when, counters, database size.",
        discussion: """
            Asks intrapushd over its control socket, beside the database; when no daemon answers, \
            reads the state it saved in the database. Works for root and the members of the group \
            intrapush. Says plainly when the daemon is not running, or does not answer within 2 s. \
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
        let reader = try DatabaseOptions.openReader(at: found.path)
        let daemon = StatusReport.askDaemon(socketPath: Configuration.controlSocket(forDatabase: found.path))
        let report = try querying(reader) {
            try StatusReport.gather(reader: reader.database, now: WallClock.nowMilliseconds(), daemon: daemon)
        }
        let output = StandardOutput()
        output.write(json ? report.json() : report.text(useColor: Terminal.usesColor(1, environment: ProcessEnvironment.current)))
    }
}
