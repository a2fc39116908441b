import IntrapushStore

/// A search (`--grep` through the local API) read a piece of ids at a time, each piece its own
/// statement and transaction, and resumable between pieces: the daemon runs other people's
/// pieces, and lets a held-back checkpoint finish, between two of one person's. Its rows come
/// in the query's order: newest first, or oldest first.
package struct PiecewiseSearch: Sendable {
    package let query: NotificationQuery
    /// Ids per piece.
    package let size: Int64
    private var ranges: [ClosedRange<Int64>]?
    private var next = 0

    package init(_ query: NotificationQuery, idsPerPiece size: Int64) {
        precondition(size > 0)
        self.query = query
        self.size = size
    }

    /// No piece is left.
    package var isFinished: Bool { ranges.map { next >= $0.count } ?? false }

    /// The number of rows the next piece selects.
    package mutating func countNext(_ reader: NotificationReader) throws -> Int64 {
        guard let range = try nextRange(reader) else { return 0 }
        var share = query
        share.idRange = range
        share.limit = nil
        return try reader.plainCount(share)
    }

    /// The next piece's rows, at most `limit`, in the query's order (`newestFirstReversed`
    /// reads as newest first: the caller turns what it gathered).
    package mutating func recordsNext(_ reader: NotificationReader, limit: Int?) throws -> [NotificationRecord] {
        guard let range = try nextRange(reader) else { return [] }
        var share = query
        share.idRange = range
        share.limit = limit
        if share.order == .newestFirstReversed { share.order = .newestFirst }
        return try reader.plainRecords(share)
    }

    private mutating func nextRange(_ reader: NotificationReader) throws -> ClosedRange<Int64>? {
        if ranges == nil { ranges = try reader.pieceRanges(query, size: size, evenOne: true) ?? [] }
        guard let ranges, next < ranges.count else { return nil }
        defer { next += 1 }
        return ranges[next]
    }
}
