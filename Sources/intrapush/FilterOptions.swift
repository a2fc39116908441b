// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import IntrapushInterface
import IntrapushQuery
import IntrapushStore

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

    @Option(help: ArgumentHelp(
        "Only notifications at least this urgent: min, low, normal, high or urgent (or 1-5).",
        discussion: "A push that named no priority counts as normal.",
        valueName: "level"))
    var priority: String?

    @Flag(help: "Only notifications addressed to you: to your user, one of your groups, or to no one in particular.")
    var mine = false

    func validate() throws {
        if let priority, NotificationPriority(member: priority) == nil {
            throw ValidationError("--priority takes min, low, normal, high or urgent (or 1 to 5), not '\(priority)'.")
        }
        if grep?.isEmpty == true { throw ValidationError("--grep needs some text to look for.") }
        if let grep, grep.utf8.count > 1024 {
            throw ValidationError("--grep takes at most 1,024 bytes of text (was \(grep.utf8.count)).")
        }
    }

    func query(limit: Int? = nil, order: NotificationQuery.Order = .newestFirst) throws -> NotificationQuery {
        let (since, until) = try time.bounds()
        var query = NotificationQuery(
            since: since,
            until: until,
            unreadOnly: unread,
            text: grep.map(TextMatch.init),
            limit: limit,
            order: order
        )
        query.minimumPriority = priority.flatMap(NotificationPriority.init(member:))
        if mine {
            guard let filter = RecipientFilter.currentUser() else {
                throw ValidationError("--mine: this user has no entry in the user database, so whom a push is for cannot be told.")
            }
            query.recipients = filter
        }
        return query
    }
}
