// SPDX-License-Identifier: Apache-2.0

import TestSupport
import Testing

@testable import IntrapushInterface
@testable import IntrapushStore

/// The plans SQLite makes of the filters an index serves: a time range and the high and urgent
/// are found through their indexes (SEARCH), never by walking the table (SCAN), when those
/// indexes hold few rows; otherwise no index is named and the daemon reads in pieces.
@Suite("The plans of the filters an index serves")
struct QueryPlanTests {
    /// 5,000 notifications a second apart; every 500th urgent, the rest of no priority.
    static func reader() throws -> (TemporaryDirectory, NotificationReader) {
        let directory = try TemporaryDirectory("plans")
        let store = try NotificationStore(path: directory.file())
        _ = try store.store((0..<5000).map { index in
            var push = Push(payload: .text("{}"), messageID: "p\(index)", title: "t", body: nil, receivedAt: 1_000_000 + Int64(index) * 1000)
            push.priority = index % 500 == 0 ? .urgent : nil
            return push
        }, liveState: nil)
        return (directory, try NotificationReader(path: directory.file()))
    }

    /// EXPLAIN QUERY PLAN's steps, as SQLite words them.
    static func plan(_ query: NotificationQuery, _ reader: NotificationReader) throws -> [String] {
        let (sql, values) = query.selectSQL()
        let statement = try reader.connection.prepare("EXPLAIN QUERY PLAN " + sql)
        try statement.bind(values)
        var steps: [String] = []
        while try statement.step() { steps.append(statement.string(at: 3) ?? "") }
        return steps
    }

    @Test("a time range of few rows: through the index of times, and the page sorted from what it found")
    func timeRange() throws {
        let (directory, reader) = try Self.reader()
        var query = NotificationQuery(since: 1_000_000 + 4_000_000, limit: 20)
        query.viewer = Viewer(userID: 1001, userName: "alice", visibleNames: ["alice"])
        query.index = try reader.narrowIndex(for: query, atMost: 4096)
        #expect(query.index == .time)
        let steps = try Self.plan(query, reader)
        #expect(steps.contains { $0.hasPrefix("SEARCH notifications USING INDEX notifications_received_at (received_at>?)") }, "\(steps)")
        #expect(!steps.contains { $0.hasPrefix("SCAN notifications") }, "\(steps)")
        #expect(try reader.records(query).count == 20)
        _ = directory
    }

    @Test("the high and urgent: through their index, in id order, no walk of the others")
    func urgent() throws {
        let (directory, reader) = try Self.reader()
        var query = NotificationQuery(limit: 20)
        query.minimumPriority = .high
        query.index = try reader.narrowIndex(for: query, atMost: 4096)
        #expect(query.index == .urgent)
        let steps = try Self.plan(query, reader)
        #expect(steps.contains { $0.hasPrefix("SCAN notifications USING INDEX notifications_urgent") || $0.hasPrefix("SEARCH notifications USING INDEX notifications_urgent") }, "\(steps)")
        #expect(!steps.contains { $0 == "SCAN notifications" }, "\(steps)")
        #expect(try reader.records(query).map(\.id) == (0..<10).reversed().map { Int64($0 * 500 + 1) })
        #expect(try reader.count(query) == 10)
        _ = directory
    }

    @Test("an index that holds many rows besides the query's is not named: the read goes in pieces")
    func wideRange() throws {
        let (directory, reader) = try Self.reader()
        var query = NotificationQuery(since: 1_000_000, limit: 20)
        query.minimumPriority = .high
        #expect(try reader.narrowIndex(for: query, atMost: 5) == nil)
        #expect(try reader.narrowIndex(for: query, atMost: 4096) == .urgent, "5,000 in the time range, 10 urgent")
        _ = directory
    }
}
