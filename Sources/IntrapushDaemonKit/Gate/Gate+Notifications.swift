import IntrapushInterface
import IntrapushStore
import IntrapushSupport
import NIOCore

extension Gate {
    /// `io.intrapush.Notifications`: the caller's own notifications (an administrator's: all),
    /// read on the query thread, marked on the store thread.
    func answerNotifications(_ call: VarlinkCall, grant: Grant, on connection: VarlinkConnectionHandler) {
        withCaller(on: connection) { caller in
            let viewer = self.viewer(of: caller, grant: grant)
            switch call.member {
            case "List": self.list(call, caller: caller, viewer: viewer, on: connection)
            case "Count": self.count(call, caller: caller, viewer: viewer, on: connection)
            case "Show": self.show(call, caller: caller, viewer: viewer, on: connection)
            case "MarkRead": self.markRead(call, viewer: viewer, on: connection)
            case "Subscribe": self.subscribe(call, caller: caller, viewer: viewer, on: connection)
            default: connection.fail(.methodNotFound(call.method))
            }
        }
    }

    /// The filter of `List` and `Count`, with the caller's eyes.
    private func query(_ call: VarlinkCall, caller: Caller, viewer: Viewer) -> Result<NotificationQuery, VarlinkError> {
        NotificationQuery.reading(filter: call.parameters["filter"]).map { query, mine in
            var query = query
            query.viewer = viewer
            if mine { query.recipients = RecipientFilter(names: caller.recipientNames) }
            return query
        }
    }

    private func count(_ call: VarlinkCall, caller: Caller, viewer: Viewer, on connection: VarlinkConnectionHandler) {
        let query: NotificationQuery
        switch self.query(call, caller: caller, viewer: viewer) {
        case .success(let made): query = made
        case .failure(let error): return connection.fail(error)
        }
        queries.run(for: caller.userID) { try $0.count(query) }.assumeIsolated().whenComplete { result in
            switch result {
            case .success(let count): connection.send(VarlinkReply(parameters: ["count": JSONValue(count)]))
            case .failure(let error): connection.fail(self.queryFailure(error, interface: call.interface))
            }
        }
    }

    private func show(_ call: VarlinkCall, caller: Caller, viewer: Viewer, on connection: VarlinkConnectionHandler) {
        guard let id = call.parameters["id"]?.integer else { return connection.fail(.invalidParameter("id")) }
        queries.run(for: caller.userID) { try $0.notification(id: id, viewer: viewer) }.assumeIsolated().whenComplete { result in
            switch result {
            case .success(let record?):
                connection.send(VarlinkReply(parameters: ["notification": record.varlinkValue]))
            case .success(nil):
                // The same answer whether it does not exist or is someone else's.
                connection.fail(VarlinkError("io.intrapush.Notifications.NoSuchNotification", [
                    "id": JSONValue(id), "message": .string("no notification \(id)"),
                ]))
            case .failure(let error):
                connection.fail(self.queryFailure(error, interface: call.interface))
            }
        }
    }

    private func list(_ call: VarlinkCall, caller: Caller, viewer: Viewer, on connection: VarlinkConnectionHandler) {
        var query: NotificationQuery
        switch self.query(call, caller: caller, viewer: viewer) {
        case .success(let made): query = made
        case .failure(let error): return connection.fail(error)
        }
        var limit: Int64 = 20
        switch call.parameters["limit"] {
        case nil, .null?: break
        case let value?:
            guard let given = value.integer, given >= 0, call.more || (1...Int64(limits.largestList)).contains(given) else {
                return connection.fail(.invalidParameter("limit"))
            }
            limit = given
        }
        switch call.parameters["oldest_first"] {
        case nil, .null?, .bool(false)?: query.order = .newestFirst
        case .bool(true)?: query.order = .oldestFirst
        default: return connection.fail(.invalidParameter("oldest_first"))
        }
        sendPage(of: query, remaining: limit == 0 ? nil : limit, caller: caller, call: call, on: connection)
    }

    /// One reply of a list, then the next once the caller has read it (with `more`). A reply
    /// ends at `rowsPerReply` rows or past `bytesPerReply` of text; without `more`, at the limit
    /// asked for or past `largestListBytes`.
    private func sendPage(
        of query: NotificationQuery, remaining: Int64?, caller: Caller, call: VarlinkCall, on connection: VarlinkConnectionHandler
    ) {
        var paged = query
        paged.limit = Int(call.more ? min(remaining ?? .max, Int64(limits.rowsPerReply)) : (remaining ?? 20))
        let page = paged
        let bytes = call.more ? limits.bytesPerReply : limits.largestListBytes
        queries.run(for: caller.userID) { reader in try Self.page(page, reader: reader, stoppingPast: bytes) }.assumeIsolated().whenComplete { result in
            let (records, isCut): ([NotificationRecord], Bool)
            switch result {
            case .success(let found): (records, isCut) = found
            case .failure(let error): return connection.fail(self.queryFailure(error, interface: call.interface))
            }
            let left = remaining.map { $0 - Int64(records.count) }
            let isExhausted = !isCut && records.count < page.limit!
            let isLast = !call.more || isExhausted || left == 0 || records.isEmpty
            connection.send(VarlinkReply(parameters: ["notifications": .array(records.map(\.varlinkValue))], continues: !isLast))
            guard !isLast, let lastID = records.last?.id else { return }
            var next = query
            let bounds = query.idRange ?? 0...Int64.max
            switch query.order {
            case .oldestFirst: next.idRange = (lastID + 1)...bounds.upperBound
            case .newestFirst, .newestFirstReversed: next.idRange = bounds.lowerBound...(lastID - 1)
            }
            connection.whenWritable { self.sendPage(of: next, remaining: left, caller: caller, call: call, on: connection) }
        }
    }

    /// The query's rows, stopping after the row that passes `limit` bytes of text, and whether
    /// it stopped there: a reply stays bounded even when each notification is large.
    private static func page(
        _ query: NotificationQuery, reader: NotificationReader, stoppingPast limit: Int
    ) throws -> (records: [NotificationRecord], isCut: Bool) {
        struct Enough: Error {}
        var records: [NotificationRecord] = []
        var bytes = 0
        do {
            try reader.forEach(query) { record in
                records.append(record)
                bytes += record.payload.utf8.count + (record.body?.utf8.count ?? 0) + (record.title?.utf8.count ?? 0)
                if bytes > limit { throw Enough() }
            }
        } catch is Enough {
            return (records, true)
        }
        return (records, false)
    }

    private func markRead(_ call: VarlinkCall, viewer: Viewer, on connection: VarlinkConnectionHandler) {
        var ids: [Int64]?
        switch (call.parameters["ids"], call.parameters["all"]) {
        case (.array(let values)?, nil), (.array(let values)?, .null?), (.array(let values)?, .bool(false)?):
            let parsed = values.compactMap(\.integer)
            guard parsed.count == values.count, !parsed.isEmpty else { return connection.fail(.invalidParameter("ids")) }
            ids = parsed
        case (nil, .bool(true)?), (.null?, .bool(true)?):
            ids = nil
        default:
            return connection.fail(.invalidParameter("ids"))
        }
        outbox.markRead(ids: ids, for: viewer).assumeIsolated().whenComplete { result in
            switch result {
            case .success(let outcome):
                connection.send(VarlinkReply(parameters: [
                    "marked": JSONValue(outcome.marked), "already_read": JSONValue(outcome.alreadyRead),
                    "missing": .array(outcome.missing.map { JSONValue($0) }), "receipts": JSONValue(outcome.receipts),
                ]))
            case .failure(let error):
                connection.fail(self.storeFailure(error, interface: call.interface, what: "mark them read"))
            }
        }
    }

    private func subscribe(_ call: VarlinkCall, caller: Caller, viewer: Viewer, on connection: VarlinkConnectionHandler) {
        guard call.more else { return connection.fail(.expectedMore()) }
        switch call.parameters["after_id"] {
        case nil, .null?:
            queries.run(for: caller.userID) { try $0.latestID() }.assumeIsolated().whenComplete { result in
                switch result {
                case .success(let latest): self.subscriptions.add(connection, viewer: viewer, after: latest)
                case .failure(let error): connection.fail(self.queryFailure(error, interface: call.interface))
                }
            }
        case let value?:
            guard let after = value.integer, after >= 0 else { return connection.fail(.invalidParameter("after_id")) }
            subscriptions.add(connection, viewer: viewer, after: after)
        }
    }
}
