// SPDX-License-Identifier: Apache-2.0

import IntrapushStore

/// A query that may walk rows it does not select (a search, a filter no index serves) read a
/// piece of ids at a time, each piece its own statement and transaction, and resumable between
/// pieces: the daemon runs other people's pieces, and lets a held-back checkpoint finish,
/// between two of one person's. Its rows come in the query's order: newest first, or oldest
/// first. The first piece may be smaller than the rest: the daemon reads it on the quick lane,
/// where most pages find their rows, and only what it did not find on the scan lane.
package struct PiecewiseSearch: Sendable {
    package let query: NotificationQuery
    /// Ids per piece.
    package let size: Int64
    /// Ids of the first piece.
    package let firstSize: Int64
    private var ranges: [ClosedRange<Int64>]?
    private var next = 0

    package init(_ query: NotificationQuery, idsPerPiece size: Int64, idsInFirstPiece firstSize: Int64? = nil) {
        precondition(size > 0 && (firstSize ?? 1) > 0)
        self.query = query
        self.size = size
        self.firstSize = firstSize ?? size
    }

    /// An index of few rows besides the query's: read whole through it, as one piece.
    private var index: NotificationIndex?

    /// No piece is left.
    package var isFinished: Bool { ranges.map { next >= $0.count } ?? false }

    /// The number of rows the next piece selects.
    package mutating func countNext(_ reader: NotificationReader) throws -> Int64 {
        guard let range = try nextRange(reader) else { return 0 }
        var share = query
        share.idRange = range
        share.limit = nil
        share.index = index
        return try reader.plainCount(share)
    }

    /// The next piece's rows, at most `limit`, in the query's order (`newestFirstReversed`
    /// reads as newest first: the caller turns what it gathered).
    package mutating func recordsNext(_ reader: NotificationReader, limit: Int?) throws -> [NotificationRecord] {
        guard let range = try nextRange(reader) else { return [] }
        var share = query
        share.idRange = range
        share.limit = limit
        share.index = index
        if share.order == .newestFirstReversed { share.order = .newestFirst }
        return try reader.plainRecords(share)
    }

    private mutating func nextRange(_ reader: NotificationReader) throws -> ClosedRange<Int64>? {
        if ranges == nil {
            if let narrow = try reader.narrowIndex(for: query, atMost: firstSize) {
                // No more rows than a first piece walks: the index finds them all at once.
                index = narrow
                ranges = [query.idRange ?? Int64.min...Int64.max]
            } else {
                ranges = try reader.pieceRanges(query, size: size, first: firstSize, evenOne: true) ?? []
            }
        }
        guard let ranges, next < ranges.count else { return nil }
        defer { next += 1 }
        return ranges[next]
    }
}
