// SPDX-License-Identifier: Apache-2.0

import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// `--grep` reads every row it cannot rule out, and on a large table the walk over its pages
/// alone keeps one core busy. The scan is split by id range over one read-only
/// connection per core, which SQLite allows without any locking between them.
extension NotificationReader {
    /// The query's rows, found by parallel workers; `nil` when a plain query is the better plan:
    /// no text to look for, a small table, or no limit (the rows would all be held in memory).
    func parallelRecords(_ query: NotificationQuery) throws -> [NotificationRecord]? {
        guard query.text != nil, let limit = query.limit, let parts = try parallelParts(query) else { return nil }
        let oldestFirst = query.order == .oldestFirst
        let shares = try runParallel(parts, oldestFirst: oldestFirst) { reader, range in
            var share = query
            share.idRange = range
            if share.order == .newestFirstReversed { share.order = .newestFirst }
            return try reader.records(share)
        }
        var records = Array(shares.joined().prefix(limit))
        if query.order == .newestFirstReversed { records.reverse() }
        return records
    }

    /// The query's count, summed over parallel workers; `nil` as for `parallelRecords`.
    func parallelCount(_ query: NotificationQuery) throws -> Int64? {
        guard query.text != nil, let parts = try parallelParts(query) else { return nil }
        let counts = try runParallel(parts, oldestFirst: false) { reader, range in
            var share = query
            share.idRange = range
            return try reader.count(share)
        }
        return counts.reduce(0, +)
    }

    /// The id ranges to hand out, newest first; `nil` when one connection should do it all.
    private func parallelParts(_ query: NotificationQuery) throws -> [ClosedRange<Int64>]? {
        // Bounded by id already (a worker's share, show, follow): run as it is.
        guard query.idRange == nil else { return nil }
        let cores = Int64(min(max(sysconf(Int32(_SC_NPROCESSORS_ONLN)), 1), 8))
        guard cores > 1 else { return nil }
        let stored = try storedIDs()
        let (lowest, highest) = (stored.lowerBound, stored.upperBound)
        let span = highest - lowest + 1
        guard span >= parallelScanThreshold else { return nil }
        let size = (span + cores - 1) / cores
        return stride(from: highest, through: lowest, by: Int64.Stride(-size)).map { (top: Int64) in
            max(lowest, top - size + 1)...top
        }
    }

    private func runParallel<Share>(
        _ parts: [ClosedRange<Int64>], oldestFirst: Bool,
        _ work: @escaping (NotificationReader, ClosedRange<Int64>) throws -> Share
    ) throws -> [Share] {
        // `work` escapes in name only (concurrentPerform returns after every call). Not
        // `withoutActuallyEscaping`: its check carries the source file's path, whose length
        // swiftc's -file-prefix-map leaves unmapped, so the binary would depend on the checkout's path.
        let ordered = oldestFirst ? parts.reversed() : parts
        let slots = ParallelSlots<Share>(count: ordered.count)
        let path = self.path
        let sendableWork = UnsafeSendable(work)
        DispatchQueue.concurrentPerform(iterations: ordered.count) { index in
            // Each worker has its own connection: SQLite connections are not shared across threads.
            slots.set(index, Result { try sendableWork.value(NotificationReader(path: path), ordered[index]) })
        }
        return try slots.values.map { try $0!.get() }
    }
}

/// One result slot per worker; each index is written by exactly one worker, then read after all
/// of them finished (concurrentPerform returns only then).
private final class ParallelSlots<Share>: @unchecked Sendable {
    private(set) var values: [Result<Share, any Error>?]
    init(count: Int) { values = Array(repeating: nil, count: count) }
    func set(_ index: Int, _ value: Result<Share, any Error>) { values[index] = value }
}

/// Carries the work closure into concurrentPerform's workers, which all finish before it returns.
private struct UnsafeSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
