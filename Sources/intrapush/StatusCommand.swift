import ArgumentParser
import IntrapushConfiguration
import IntrapushQuery
import IntrapushSupport

struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show what the daemon is doing: connected or not, since when, counters, database size.",
        discussion: """
            Read from the state intrapushd keeps in its database, so it works without privileges \
            beyond reading the database. Says plainly when the daemon is not running. Exits 0 whether \
            or not the daemon is connected, 66 when there is no database.

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
        // The daemon writes its state at least once per heartbeat, and on every reconnect attempt.
        let slowest = max(
            found.configuration?.heartbeatInterval ?? Configuration.Defaults.heartbeatInterval,
            found.configuration?.reconnectMax ?? Configuration.Defaults.reconnectMax)
        let report = try querying(reader) {
            try StatusReport.gather(reader: reader, now: WallClock.nowMilliseconds(), staleAfter: slowest * 3 + .seconds(10))
        }
        let output = StandardOutput()
        output.write(json ? report.json() : report.text(useColor: Terminal.usesColor(1, environment: ProcessEnvironment.current)))
    }
}
