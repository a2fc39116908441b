import IntrapushStore
import IntrapushSupport

/// The local API's `Notification` type (packaging/varlink/io.intrapush.Notifications.varlink),
/// written by the daemon and read by the CLI and the agent through this one pair.
extension NotificationRecord {
    package var varlinkValue: JSONValue {
        .object([
            "id": JSONValue(id),
            "message_id": JSONValue(messageID),
            "received_at": JSONValue(receivedAt),
            "title": JSONValue(title),
            "body": JSONValue(body),
            "payload": .string(payload),
            "read_at": readAt.map { JSONValue($0) } ?? .null,
            "priority": priority.map { JSONValue(Int64($0.rawValue)) } ?? .null,
            "link": JSONValue(link),
            "recipients": recipientNames.map { .array($0.map { .string($0) }) } ?? .null,
        ])
    }

    /// `nil` when `value` is not a `Notification`.
    package init?(varlinkValue value: JSONValue) {
        guard let id = value["id"]?.integer, let receivedAt = value["received_at"]?.integer,
            let payload = value["payload"]?.string
        else { return nil }
        var recipients: String?
        if case .array(let names)? = value["recipients"] {
            recipients = Recipients.column(for: names.compactMap(\.string))
        }
        self.init(
            id: id, messageID: value["message_id"]?.string, receivedAt: receivedAt, payload: payload,
            title: value["title"]?.string, body: value["body"]?.string, readAt: value["read_at"]?.integer,
            priority: value["priority"]?.integer.flatMap { Int(exactly: $0) }.flatMap(NotificationPriority.init(rawValue:)),
            link: value["link"]?.string, recipients: recipients)
    }
}

/// The local API's `Filter` type and its reading into a query.
extension NotificationQuery {
    /// The filter's members of this query (what `List` and `Count` take).
    package var varlinkFilter: JSONValue {
        var members: [String: JSONValue] = [:]
        if let since { members["since"] = JSONValue(since) }
        if let until { members["until"] = JSONValue(until) }
        if unreadOnly { members["unread"] = .bool(true) }
        if let text { members["grep"] = .string(text.needle) }
        if let minimumPriority { members["priority"] = JSONValue(Int64(minimumPriority.rawValue)) }
        if recipients != nil { members["mine"] = .bool(true) }
        if let idRange {
            if idRange.lowerBound > 0 { members["after_id"] = JSONValue(idRange.lowerBound - 1) }
            if idRange.upperBound < .max { members["last_id"] = JSONValue(idRange.upperBound) }
        }
        return .object(members)
    }

    /// A query from a `Filter`; the name of the first member that is not what the interface
    /// says when it cannot be read. `mine` is returned for the caller to apply: only the daemon
    /// knows whose names it means.
    package static func reading(filter: JSONValue?) -> Result<(query: NotificationQuery, mine: Bool), VarlinkError> {
        var query = NotificationQuery()
        guard let filter, filter != .null else { return .success((query, false)) }
        guard case .object = filter else { return .failure(.invalidParameter("filter")) }
        func integer(_ name: String) -> Result<Int64?, VarlinkError> {
            switch filter[name] {
            case nil, .null?: .success(nil)
            case let value?: value.integer.map { .success($0) } ?? .failure(.invalidParameter(name))
            }
        }
        func flag(_ name: String) -> Result<Bool, VarlinkError> {
            switch filter[name] {
            case nil, .null?: .success(false)
            case .bool(let value)?: .success(value)
            default: .failure(.invalidParameter(name))
            }
        }
        do {
            query.since = try integer("since").get()
            query.until = try integer("until").get()
            query.unreadOnly = try flag("unread").get()
            switch filter["grep"] {
            case nil, .null?: break
            case .string(let needle)? where !needle.isEmpty && needle.utf8.count <= 4096: query.text = TextMatch(needle)
            default: return .failure(.invalidParameter("grep"))
            }
            if let level = try integer("priority").get() {
                guard let priority = Int(exactly: level).flatMap(NotificationPriority.init(rawValue:)) else {
                    return .failure(.invalidParameter("priority"))
                }
                query.minimumPriority = priority
            }
            let after = try integer("after_id").get() ?? 0
            let last = try integer("last_id").get() ?? .max
            guard after >= 0, after < .max else { return .failure(.invalidParameter("after_id")) }
            guard last > after else { return .failure(.invalidParameter("last_id")) }
            if after > 0 || last < .max { query.idRange = (after + 1)...last }
            return .success((query, try flag("mine").get()))
        } catch {
            return .failure(error)
        }
    }
}
