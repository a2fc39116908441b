// SPDX-License-Identifier: Apache-2.0

import IntrapushInterface
import IntrapushStore
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import TestSupport
import Testing

@testable import IntrapushDaemonKit

/// The local API's reads on their two lanes, on a real file: a point read beside another
/// person's search, two people's searches piece by piece, and a read whose caller went.
@Suite("The local API's reads, on their lanes")
struct QueryRunnerTests {
    /// A call the test ends.
    final class Lifetime: CallLifetime, @unchecked Sendable {
        private var handlers: [() -> Void] = []
        private var isEnded = false
        func onEnd(_ body: @escaping () -> Void) {
            if isEnded { body() } else { handlers.append(body) }
        }
        func end() {
            isEnded = true
            for handler in handlers { handler() }
            handlers = []
        }
    }

    /// A file of `rows` notifications with bodies long enough that a search reads for a while.
    static func database(rows: Int) throws -> (TemporaryDirectory, String) {
        let directory = try TemporaryDirectory("queries")
        let path = directory.file()
        let store = try NotificationStore(path: path)
        let body = String(repeating: "nothing to find here ", count: 20)
        for start in stride(from: 1, through: rows, by: 20_000) {
            let pushes = (start..<min(start + 20_000, rows + 1)).map {
                Push(payload: .text("{}"), messageID: "m-\($0)", title: "t\($0)", body: body, receivedAt: Int64($0))
            }
            _ = try store.store(pushes, liveState: nil)
        }
        return (directory, path)
    }

    static func search(_ needle: String) -> NotificationQuery {
        NotificationQuery(text: TextMatch(needle))
    }

    @Test("a point read is answered while another person's search is under way")
    func pointReadBesideSearch() async throws {
        let (directory, path) = try Self.database(rows: 100_000)
        let loops = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = loops.next()
        let runner = QueryRunner(databasePath: path, eventLoop: loop, maximumWaiting: 4, betweenScanPieces: {})
        let searchDone = NIOLockedValueBox(false)
        let (searched, shown) = try await loop.submit { () -> (EventLoopFuture<Int64>, EventLoopFuture<Bool>) in
            let count = SearchCount(PiecewiseSearch(Self.search("no such words"), idsPerPiece: 4096))
            let searched = runner.scan(for: 1000) { try count.next($0) }
            searched.whenComplete { _ in searchDone.withLockedValue { $0 = true } }
            let shown = runner.run(for: 2000) { try $0.notification(id: 7) != nil }.map { found in
                found && !searchDone.withLockedValue { $0 }
            }
            return (searched, shown)
        }.get()
        #expect(try await shown.get(), "the other person's read was answered before the search ended")
        #expect(try await searched.get() == 0)
        await runner.shutdown()
        try await loops.shutdownGracefully()
        _ = directory
    }

    @Test("two people's searches share the scan lane a piece each in turn")
    func searchesTakeTurns() async throws {
        let (directory, path) = try Self.database(rows: 40_000)
        let loops = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = loops.next()
        let runner = QueryRunner(databasePath: path, eventLoop: loop, maximumWaiting: 4, betweenScanPieces: {})
        let order = NIOLockedValueBox<[UInt32]>([])
        let futures = try await loop.submit { () -> [EventLoopFuture<Int64>] in
            [UInt32(1000), 2000].map { person in
                let count = SearchCount(PiecewiseSearch(Self.search("no such words"), idsPerPiece: 4096))
                return runner.scan(for: person) { reader in
                    order.withLockedValue { $0.append(person) }
                    return try count.next(reader)
                }
            }
        }.get()
        for future in futures { #expect(try await future.get() == 0) }
        let pieces = order.withLockedValue { $0 }
        #expect(pieces.count == 20)
        #expect(Array(pieces.prefix(10)) == [1000, 2000, 1000, 2000, 1000, 2000, 1000, 2000, 1000, 2000], "\(pieces)")
        await runner.shutdown()
        try await loops.shutdownGracefully()
        _ = directory
    }

    @Test("a read whose caller went is interrupted where it is, not run to its end")
    func goneCallerInterrupted() async throws {
        let (directory, path) = try Self.database(rows: 10)
        let loops = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = loops.next()
        let runner = QueryRunner(databasePath: path, eventLoop: loop, maximumWaiting: 4, betweenScanPieces: {})
        let lifetime = Lifetime()
        let started = NIOLockedValueBox(false)
        let counted = try await loop.submit {
            // A statement without end: only the interruption can stop it.
            runner.run(for: 1000, until: lifetime) { reader -> Int64 in
                started.withLockedValue { $0 = true }
                return try reader.integer("WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT count(*) FROM n")
            }
        }.get()
        try await eventually("the read to start") { started.withLockedValue { $0 } }
        try await loop.submit { lifetime.end() }.get()
        await #expect(throws: QueryRunner.Cancelled.self) { try await counted.get() }
        await runner.shutdown()
        try await loops.shutdownGracefully()
        _ = directory
    }
}
