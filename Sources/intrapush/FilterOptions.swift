import ArgumentParser
import IntrapushQuery

/// The selection shared by list and count.
struct FilterOptions: ParsableArguments {
    @OptionGroup var time: TimeRangeOptions

    @Flag(help: "Only notifications not marked read.")
    var unread = false

    @Option(name: [.short, .long], help: ArgumentHelp(
        "Only notifications whose title, body or payload contains this text.",
        discussion: "Case-insensitive (ASCII letters) unless the text has an uppercase letter.",
        valueName: "text"))
    var grep: String?

    func validate() throws {
        if grep?.isEmpty == true { throw ValidationError("--grep needs some text to look for.") }
        if let grep, grep.utf8.count > 1024 {
            throw ValidationError("--grep takes at most 1,024 bytes of text (was \(grep.utf8.count)).")
        }
    }

    func query(limit: Int? = nil, order: NotificationQuery.Order = .newestFirst) throws -> NotificationQuery {
        let (since, until) = try time.bounds()
        return NotificationQuery(
            since: since,
            until: until,
            unreadOnly: unread,
            text: grep.map(TextMatch.init),
            limit: limit,
            order: order
        )
    }
}
