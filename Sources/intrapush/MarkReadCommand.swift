import ArgumentParser
import IntrapushQuery
import IntrapushSupport

struct MarkReadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mark-read",
        abstract: "Mark notifications read (sets read_at).",
        discussion: """
            The only command that writes: it needs write access to the database and its directory. \
            A notification already read keeps its first read_at. Exits 1 when an id does not exist \
            (the others are still marked).

            Examples:
              intrapush mark-read 41 42
              intrapush mark-read --all
            """
    )

    @OptionGroup var location: DatabaseOptions

    @Argument(help: ArgumentHelp("The ids to mark.", valueName: "id"))
    var ids: [Int64] = []

    @Flag(help: "Mark every unread notification.")
    var all = false

    func validate() throws {
        if all && !ids.isEmpty { throw ValidationError("Give either ids or --all, not both.") }
        if !all && ids.isEmpty { throw ValidationError("Give the ids to mark read, or --all.") }
    }

    func run() throws {
        let path = try location.locate().path
        try DatabaseLocator.requireExisting(path)
        let now = WallClock.nowMilliseconds()
        let output = StandardOutput()
        do {
            let marker = try NotificationMarker(path: path)
            if all {
                let marked = try marker.markAllRead(at: now)
                output.write("marked \(marked) notification\(marked == 1 ? "" : "s") read\n")
                return
            }
            let outcome = try marker.markRead(ids: ids, at: now)
            output.write("marked \(outcome.marked) notification\(outcome.marked == 1 ? "" : "s") read"
                + (outcome.alreadyRead > 0 ? " (\(outcome.alreadyRead) already read)" : "") + "\n")
            if !outcome.missing.isEmpty {
                output.flush()
                let list = outcome.missing.map(String.init).joined(separator: ", ")
                throw CommandFailure(.notFound, "no notification with id \(list) in \(path)")
            }
        } catch {
            // Passes a CommandFailure (the ids not found) through as it is.
            throw CommandFailure.database(error, path: path, writing: true)
        }
    }
}
