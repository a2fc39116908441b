// SPDX-License-Identifier: Apache-2.0

import TestSupport
import Testing

@testable import IntrapushInterface
@testable import IntrapushQuery
@testable import IntrapushStore

@Suite struct NotificationReaderTests {
    /// list's default: newest first, limited.
    @Test("newest first, with a limit")
    func newestFirst() throws {
        let reader = try QueryFixture().reader()
        let ids = try reader.records(NotificationQuery(limit: 3)).map(\.id)
        #expect(ids == [30, 29, 28])
    }

    /// --reverse prints the same newest selection, oldest first; export is oldest first over all.
    @Test("reverse keeps the newest selection; oldest-first covers everything")
    func orders() throws {
        let reader = try QueryFixture().reader()
        #expect(try reader.records(NotificationQuery(limit: 3, order: .newestFirstReversed)).map(\.id) == [28, 29, 30])
        #expect(try reader.records(NotificationQuery(limit: 3, order: .oldestFirst)).map(\.id) == [1, 2, 3])
        #expect(try reader.records(NotificationQuery()).count == 30)
    }

    /// --since is inclusive, --until exclusive, on received_at.
    @Test("since and until bound received_at")
    func timeBounds() throws {
        let reader = try QueryFixture().reader()
        let query = NotificationQuery(since: QueryFixture.time(ofIndex: 10), until: QueryFixture.time(ofIndex: 13))
        #expect(try reader.records(query).map(\.id) == [12, 11, 10])
        #expect(try reader.count(query) == 3)
    }

    /// --unread leaves out rows with read_at, in list and in count.
    @Test("unread only")
    func unreadOnly() throws {
        let reader = try QueryFixture().reader()
        let query = NotificationQuery(unreadOnly: true, limit: 4)
        #expect(try reader.records(query).map(\.id) == [29, 28, 26, 25])
        #expect(try reader.count(NotificationQuery(unreadOnly: true)) == 20)
        #expect(try reader.countUnread() == 20)
    }

    /// count --unread counts whichever set is smaller; both ways give the same answer.
    @Test("unread count is right when most are read and when most are unread")
    func unreadCountBothWays() throws {
        let fixture = try QueryFixture()
        let connection = try SQLiteConnection(path: fixture.path)
        try connection.execute("UPDATE notifications SET read_at = 1 WHERE id > 2")
        #expect(try fixture.reader().countUnread() == 2)
        try connection.execute("UPDATE notifications SET read_at = CASE WHEN id = 1 THEN 5 ELSE NULL END")
        #expect(try fixture.reader().countUnread() == 29)
    }

    /// --grep looks in title, body and payload; smart case; CJK text matches as it is.
    @Test("grep: title, body, payload, smart case, CJK")
    func grep() throws {
        let fixture = try QueryFixture(title: { $0 == 7 ? "磁盘告警 on host" : "Title \($0)" })
        let reader = try fixture.reader()
        func ids(_ text: String) throws -> [Int64] {
            try reader.records(NotificationQuery(text: TextMatch(text))).map(\.id)
        }
        #expect(try ids("告警") == [7])
        #expect(try ids("body of 12") == [12])
        #expect(try ids("payload-21") == [21])
        #expect(try ids("title 5") == [5])
        #expect(try ids("Title 5") == [5])
        #expect(try ids("TITLE 5") == [])
        #expect(try ids("nowhere") == [])
        #expect(try reader.count(NotificationQuery(text: TextMatch("of 1"))) == 11)
    }

    /// The parallel scan splits ids among workers but returns what one connection would.
    @Test("a parallel grep scan returns the same rows in the same order as a plain one")
    func parallelScan() throws {
        let fixture = try QueryFixture(count: 200)
        let parallel = try fixture.reader()
        parallel.parallelScanThreshold = 10
        let plain = try fixture.reader()
        plain.parallelScanThreshold = .max
        for order in [NotificationQuery.Order.newestFirst, .newestFirstReversed, .oldestFirst] {
            let query = NotificationQuery(unreadOnly: true, text: TextMatch("body of 1"), limit: 25, order: order)
            let expected = try plain.records(query).map(\.id)
            #expect(expected.count == 25)
            #expect(try parallel.records(query).map(\.id) == expected)
            #expect(try parallel.parallelRecords(query) != nil, "the parallel path was taken")
        }
        let counted = NotificationQuery(text: TextMatch("body of 1"))
        #expect(try parallel.count(counted) == plain.count(counted))
        #expect(try parallel.parallelCount(counted) != nil)
    }

    /// The daemon's scans: the same rows as one statement, and no snapshot held between pieces,
    /// so that a checkpoint can copy the whole WAL back and start it over there.
    @Test("a grep read in pieces returns what one statement does, and lets the WAL go between pieces")
    func piecewiseScan() throws {
        let fixture = try QueryFixture(count: 200)
        let plain = try fixture.reader()
        plain.parallelScanThreshold = .max
        let pauses = try PauseLog(path: fixture.path)
        let pieces = try fixture.reader()
        pieces.scanPieces = ScanPieces(ids: 16) { pauses.paused() }
        for order in [NotificationQuery.Order.newestFirst, .newestFirstReversed, .oldestFirst] {
            for limit in [25, nil] {
                let query = NotificationQuery(unreadOnly: true, text: TextMatch("body of 1"), limit: limit, order: order)
                let expected = try plain.records(query).map(\.id)
                #expect(try pieces.records(query).map(\.id) == expected, "\(order), limit \(String(describing: limit))")
            }
        }
        let counted = NotificationQuery(text: TextMatch("body of 1"))
        #expect(try pieces.count(counted) == plain.count(counted))
        #expect(pauses.count > 10, "the scans were read in pieces")
        #expect(pauses.busy == ["0"], "no snapshot held between pieces: \(pauses.busy)")
    }

    /// show and follow's reads.
    @Test("one by id, the ones after an id, the latest id")
    func lookups() throws {
        let reader = try QueryFixture().reader()
        let record = try #require(try reader.notification(id: 3))
        #expect(record.messageID == "m-3" && record.title == "Title 3" && record.readAt != nil)
        #expect(try reader.notification(id: 99) == nil)
        #expect(try reader.notifications(after: 27).map(\.id) == [28, 29, 30])
        #expect(try reader.notifications(after: 0, limit: 2).map(\.id) == [1, 2])
        #expect(try reader.latestID() == 30)
    }

    /// A database a newer intrapush wrote is refused, and an empty file is not taken for one.
    @Test("newer schema and uninitialised files are clear errors")
    func refusedFiles() throws {
        let fixture = try QueryFixture(count: 1)
        try SQLiteConnection(path: fixture.path).setUserVersion(99)
        #expect(throws: SchemaVersionError.self) { _ = try NotificationReader(path: fixture.path) }
        let empty = fixture.directory.file("empty.sqlite3")
        _ = try SQLiteConnection(path: empty)
        #expect(throws: UninitializedDatabaseError.self) { _ = try NotificationReader(path: empty) }
        let failure = CommandFailure.database(SchemaVersionError(databaseVersion: 99, supportedVersion: 2), path: "x")
        #expect(failure.exitStatus == 65)
    }
}

/// What a piecewise scan's pauses found: whether the WAL could start over in each.
private final class PauseLog: @unchecked Sendable {
    private let writer: SQLiteConnection
    private(set) var count = 0
    private(set) var busy: Set<String> = []

    init(path: String) throws {
        writer = try SQLiteConnection(path: path)
        try writer.execute("CREATE TABLE elsewhere (x)")
        // Frames in the WAL, so that the first piece's snapshot uses it.
        try writer.execute("INSERT INTO elsewhere VALUES (1)")
    }

    func paused() {
        count += 1
        // Restarting the WAL waits for every reader that still uses it: busy (1) if one does.
        busy.insert((try? writer.text("PRAGMA wal_checkpoint(TRUNCATE)")) ?? "error")
        try? writer.execute("INSERT INTO elsewhere VALUES (1)")
    }
}
