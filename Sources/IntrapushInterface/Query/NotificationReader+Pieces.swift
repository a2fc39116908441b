// SPDX-License-Identifier: Apache-2.0

/// A scan in the daemon (`--grep` through the local API) must not hold one read transaction for
/// the whole walk over a large table: while a reader holds its snapshot, the write-ahead log
/// cannot be copied back past it nor start over, so it grows with every push and each commit's
/// checkpoint finds more to do. Read in pieces of ids, each its own transaction, the snapshot is
/// let go between pieces, where the daemon lets a held-back checkpoint finish.
package struct ScanPieces: Sendable {
    /// Ids per piece: small enough that a piece is short, large enough that the pauses are few.
    package var ids: Int64
    /// Called between pieces, with no transaction open.
    package var between: @Sendable () -> Void

    package init(ids: Int64, between: @escaping @Sendable () -> Void) {
        self.ids = ids
        self.between = between
    }
}

extension NotificationReader {
    /// Hands `body` the query's rows read piece by piece, in its order; false (nothing done) when
    /// it is no scan (no text to look for), no pieces are set, or the ids fit in one piece.
    func piecewiseRecords(_ query: NotificationQuery, _ body: (NotificationRecord) throws -> Void) throws -> Bool {
        guard let pieces = scanPieces, query.text != nil, let parts = try pieceRanges(query, size: pieces.ids) else { return false }
        var remaining = query.limit ?? .max
        var held: [NotificationRecord] = []
        for (index, range) in parts.enumerated() where remaining > 0 {
            if index > 0 { pieces.between() }
            var share = query
            share.idRange = range
            share.limit = remaining == .max ? nil : remaining
            if share.order == .newestFirstReversed { share.order = .newestFirst }
            // Rows are handed on only after the piece's statement is finished: its transaction
            // ends before the caller's work (and the pause) begins.
            let rows = try plainRecords(share)
            remaining -= rows.count
            if query.order == .newestFirstReversed { held += rows } else { try rows.forEach(body) }
        }
        try held.reversed().forEach(body)
        return true
    }

    /// The query's count summed over pieces; `nil` as for `piecewiseRecords`.
    func piecewiseCount(_ query: NotificationQuery) throws -> Int64? {
        guard let pieces = scanPieces, query.text != nil, let parts = try pieceRanges(query, size: pieces.ids) else { return nil }
        var total: Int64 = 0
        for (index, range) in parts.enumerated() {
            if index > 0 { pieces.between() }
            var share = query
            share.idRange = range
            total += try plainCount(share)
        }
        return total
    }

    /// The id ranges within the query's own, in the order its rows are wanted; `nil` when they
    /// fit in one piece (unless `evenOne`: then that one), or there are none. With `first`, the
    /// first range (the newest, or with `oldestFirst` the oldest) has that many ids, the others
    /// `size`.
    func pieceRanges(_ query: NotificationQuery, size: Int64, first: Int64? = nil, evenOne: Bool = false) throws -> [ClosedRange<Int64>]? {
        let stored = try storedIDs()
        let wanted = query.idRange ?? stored
        let (lowest, highest) = (max(wanted.lowerBound, stored.lowerBound), min(wanted.upperBound, stored.upperBound))
        guard lowest <= highest, evenOne || highest - lowest >= size else { return nil }
        let firstSize = first ?? size
        var ranges: [ClosedRange<Int64>] = []
        if query.order == .oldestFirst {
            var bottom = lowest
            while bottom <= highest {
                let top = bottom + min(ranges.isEmpty ? firstSize : size, highest - bottom + 1) - 1
                ranges.append(bottom...top)
                bottom = top + 1
            }
        } else {
            var top = highest
            while top >= lowest {
                let bottom = top - min(ranges.isEmpty ? firstSize : size, top - lowest + 1) + 1
                ranges.append(bottom...top)
                top = bottom - 1
            }
        }
        return ranges
    }

    /// The lowest and highest ids stored (0...0 when none). Two subqueries: SQLite finds a lone
    /// min() or max() at an end of the table, but min() and max() in one SELECT walk every row.
    func storedIDs() throws -> ClosedRange<Int64> {
        let bounds = try connection.prepare(
            "SELECT coalesce((SELECT min(id) FROM notifications), 0), coalesce((SELECT max(id) FROM notifications), 0)")
        try bounds.step()
        return bounds.int64(at: 0)...max(bounds.int64(at: 0), bounds.int64(at: 1))
    }
}
