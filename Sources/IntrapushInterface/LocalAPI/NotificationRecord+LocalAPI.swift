// SPDX-License-Identifier: Apache-2.0

import IntrapushStore
import IntrapushSupport

/// The local API's `Notification`, written by the daemon and read by the CLI and the agent
/// through this one pair.
extension NotificationRecord {
    package var localAPIValue: NotificationsInterface.Notification {
        NotificationsInterface.Notification(
            id: id, messageID: messageID, receivedAt: receivedAt, title: title, body: body, payload: payload, readAt: readAt,
            priority: priority.map { Int64($0.rawValue) }, link: link, recipients: recipientNames)
    }

    package init(_ notification: NotificationsInterface.Notification) {
        self.init(
            id: notification.id, messageID: notification.messageID, receivedAt: notification.receivedAt, payload: notification.payload,
            title: notification.title, body: notification.body, readAt: notification.readAt,
            priority: notification.priority.flatMap { Int(exactly: $0) }.flatMap(NotificationPriority.init(rawValue:)),
            link: notification.link, recipients: notification.recipients.map(Recipients.column(for:)))
    }
}

/// The local API's `Filter` and the query it stands for.
extension NotificationQuery {
    /// The filter of this query (what `List` and `Count` take).
    package var localAPIFilter: NotificationsInterface.Filter {
        var filter = NotificationsInterface.Filter()
        filter.since = since
        filter.until = until
        if unreadOnly { filter.unread = true }
        filter.grep = text?.needle
        filter.priority = minimumPriority.map { Int64($0.rawValue) }
        if recipients != nil { filter.mine = true }
        if let idRange {
            if idRange.lowerBound > 0 { filter.afterID = idRange.lowerBound - 1 }
            if idRange.upperBound < .max { filter.lastID = idRange.upperBound }
        }
        return filter
    }

    /// A query from a `Filter`: `invalidParameter` naming the member whose value the interface's
    /// words rule out (an empty `grep`, a priority outside 1-5, ids that select nothing). `mine`
    /// is returned for the caller to apply: only the daemon knows whose names it means.
    package static func reading(
        filter: NotificationsInterface.Filter?
    ) -> Result<(query: NotificationQuery, mine: Bool), VarlinkServiceInterface.Failure> {
        var query = NotificationQuery()
        guard let filter else { return .success((query, false)) }
        query.since = filter.since
        query.until = filter.until
        query.unreadOnly = filter.unread ?? false
        if let needle = filter.grep {
            guard !needle.isEmpty, needle.utf8.count <= 4096 else { return .failure(.invalidParameter(parameter: "filter.grep")) }
            query.text = TextMatch(needle)
        }
        if let level = filter.priority {
            guard let priority = Int(exactly: level).flatMap(NotificationPriority.init(rawValue:)) else {
                return .failure(.invalidParameter(parameter: "filter.priority"))
            }
            query.minimumPriority = priority
        }
        let after = filter.afterID ?? 0
        let last = filter.lastID ?? .max
        guard after >= 0, after < .max else { return .failure(.invalidParameter(parameter: "filter.after_id")) }
        guard last > after else { return .failure(.invalidParameter(parameter: "filter.last_id")) }
        if after > 0 || last < .max { query.idRange = (after + 1)...last }
        return .success((query, filter.mine ?? false))
    }
}
