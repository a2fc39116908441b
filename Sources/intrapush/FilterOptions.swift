import ArgumentParser
import IntrapushCore

/// The selection shared by list, count and export.
struct FilterOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Only notifications received at or after this time.",
        discussion: "An RFC 3339 time (2026-11-22T08:00:00Z), a date (2026-11-22, local midnight) or an age (30s, 15min, 2h, 7d).",
        valueName: "time"))
    var since: String?

    @Option(help: ArgumentHelp("Only notifications received before this time (same forms as --since).", valueName: "time"))
    var until: String?

    @Flag(help: "Only notifications not marked read.")
    var unread = false

    @Option(name: [.short, .long], help: ArgumentHelp(
        "Only notifications whose title, body or payload contains this text.",
        discussion: "Case-insensitive (ASCII letters) unless the text has an uppercase letter.",
        valueName: "text"))
    var grep: String?

    func validate() throws {
        _ = try query()
        if grep?.isEmpty == true { throw ValidationError("--grep needs some text to look for.") }
        if let grep, grep.utf8.count > 1024 {
            throw ValidationError("--grep takes at most 1,024 bytes of text (was \(grep.utf8.count)).")
        }
    }

    func query(limit: Int? = nil, order: NotificationQuery.Order = .newestFirst) throws -> NotificationQuery {
        NotificationQuery(
            since: try parseTime(since, option: "--since"),
            until: try parseTime(until, option: "--until"),
            unreadOnly: unread,
            text: grep.map(TextMatch.init),
            limit: limit,
            order: order
        )
    }
}
