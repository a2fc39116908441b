// SPDX-License-Identifier: Apache-2.0

import IntrapushInterface
import IntrapushStore
import NIOCore

extension LocalAPI {
    /// `List`: the newest `limit` (or, with `oldest_first`, the oldest), in pages when the
    /// caller asked for more, the next once the caller has read the last.
    func list(
        _ parameters: NotificationsInterface.List.Parameters, caller: Caller, viewer: Viewer, reply: VarlinkResponder<NotificationsInterface.List>
    ) {
        var query: NotificationQuery
        switch self.query(parameters.filter, caller: caller, viewer: viewer) {
        case .success(let made): query = made
        case .failure(let failure): return reply.fail(failure)
        }
        let limit = parameters.limit ?? 20
        // With more, 0 means all; without, a list is one reply and has a ceiling.
        guard limit >= 0, reply.wantsMore || (1...Int64(limits.largestList)).contains(limit) else {
            return reply.fail(.invalidParameter(parameter: "limit"))
        }
        query.order = parameters.oldestFirst == true ? .oldestFirst : .newestFirst
        sendPage(of: query, remaining: limit == 0 ? nil : limit, caller: caller, reply: reply)
    }

    /// One reply of a list, then the next once the caller has read it (with `more`). A reply
    /// ends at `rowsPerReply` rows or past `bytesPerReply` of text; without `more`, at the limit
    /// asked for or past `largestListBytes`.
    private func sendPage(
        of query: NotificationQuery, remaining: Int64?, caller: Caller, reply: VarlinkResponder<NotificationsInterface.List>
    ) {
        let streams = reply.wantsMore
        var paged = query
        paged.limit = Int(streams ? min(remaining ?? .max, Int64(limits.rowsPerReply)) : (remaining ?? 20))
        let page = paged
        let bytes = streams ? limits.bytesPerReply : limits.largestListBytes
        // A filter (unread, a time, a priority, whose eyes) may pass over many rows before it
        // has a page: the quick lane walks a bounded piece, the scan lane the rest. A search
        // reads every row it walks: all of it on the scan lane.
        let isSearch = page.text != nil
        let pieces = PiecewiseSearch(
            page, idsPerPiece: QueryRunner.idsPerScanPiece, idsInFirstPiece: isSearch ? nil : QueryRunner.idsPerQuickPiece)
        let search = SearchPage(pieces, limit: page.limit!, stoppingPast: bytes)
        let rows: EventLoopFuture<(records: [NotificationRecord], isCut: Bool)> =
            isSearch
            ? queries.scan(for: caller.userID, until: reply.context) { reader in try search.next(reader) }
            : queries.piecewise(for: caller.userID, until: reply.context) { reader in try search.next(reader) }
        rows.assumeIsolated().whenComplete { result in
            let (records, isCut): ([NotificationRecord], Bool)
            switch result {
            case .success(let found): (records, isCut) = found
            case .failure(let error): return reply.fail(self.notificationsFailure(error))
            }
            // Without more a reply is bounded: a result that does not fit asks for more.
            if !streams, isCut, records.count < page.limit! { return reply.fail(.expectedMore) }
            let left = remaining.map { $0 - Int64(records.count) }
            let isExhausted = !isCut && records.count < page.limit!
            let isLast = !streams || isExhausted || left == 0 || records.isEmpty
            let answer = NotificationsInterface.List.Reply(notifications: records.map(\.localAPIValue))
            guard !isLast, let lastID = records.last?.id else { return reply.reply(answer) }
            reply.yield(answer)
            var next = query
            let bounds = query.idRange ?? 0...Int64.max
            switch query.order {
            case .oldestFirst: next.idRange = (lastID + 1)...bounds.upperBound
            case .newestFirst, .newestFirstReversed: next.idRange = bounds.lowerBound...(lastID - 1)
            }
            reply.whenWritable { self.sendPage(of: next, remaining: left, caller: caller, reply: reply) }
        }
    }
}

/// A page gathered a piece at a time (the first on the quick lane, the rest on the scan lane,
/// or, for a search, all there): its limits, rows and bytes over the pieces, stopping after the
/// row that passes the bytes (so the first row always fits, however large). Used by one piece at
/// a time, on its lane's thread.
final class SearchPage: @unchecked Sendable {
    private var search: PiecewiseSearch
    private let limit: Int
    private let bytesLimit: Int
    private var records: [NotificationRecord] = []
    private var bytes = 0

    init(_ search: PiecewiseSearch, limit: Int, stoppingPast bytesLimit: Int) {
        self.search = search
        self.limit = limit
        self.bytesLimit = bytesLimit
    }

    /// Reads the next piece; the page once it is whole, nil while more pieces follow.
    func next(_ reader: NotificationReader) throws -> (records: [NotificationRecord], isCut: Bool)? {
        for record in try search.recordsNext(reader, limit: limit - records.count) {
            records.append(record)
            bytes += record.payload.utf8.count + (record.body?.utf8.count ?? 0) + (record.title?.utf8.count ?? 0)
            if bytes > bytesLimit { return (records, true) }
        }
        return records.count >= limit || search.isFinished ? (records, false) : nil
    }
}

/// A count in pieces: from the indexes where the filter allows (at once on the quick lane when
/// the sets it subtracts are small, else as one piece on the scan lane), else summed over pieces
/// of ids, the first on the quick lane unless it is a search.
final class SearchCount: @unchecked Sendable {
    private var search: PiecewiseSearch
    private var total: Int64 = 0
    private var isFirst = true

    init(_ search: PiecewiseSearch) {
        self.search = search
    }

    /// Counts the next piece; the total once the last is counted.
    func next(_ reader: NotificationReader) throws -> Int64? {
        defer { isFirst = false }
        if search.query.isCountedFromIndexes {
            if isFirst, try !reader.isCountedCheaply(search.query, atMost: search.firstSize) { return nil }
            return try reader.count(search.query)
        }
        total += try search.countNext(reader)
        return search.isFinished ? total : nil
    }
}

extension VarlinkResponder {
    /// The call it answers.
    var context: VarlinkCallContext? { sink as? VarlinkCallContext }
}
