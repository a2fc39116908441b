// SPDX-License-Identifier: Apache-2.0

import Foundation
@testable import IntrapushInterface
import IntrapushStore
import IntrapushSupport
import Logging
import NIOCore
import NIOEmbedded
import TestSupport
import Testing

@testable import IntrapushDaemonKit

/// The quick lane, which answers everyone's `Show`, pages and subscriptions, does no scan: a
/// `List` or `Count` whose filter no index serves walks a bounded piece there and the rest on
/// the scan lane. Measured in SQLite's own steps (its progress handler), against the same read
/// over a first piece's ids and over the whole table, in the same test: no clock, no idle
/// machine needed.
@Suite("The quick lane walks a bounded piece, whatever the filter")
struct QuickLaneTests {
    /// Runs each read at once on the test's thread, counting the steps of SQLite's virtual
    /// machine spent on each lane.
    final class CountingQueries: LocalAPIQueries {
        let loop: EmbeddedEventLoop
        let reader: NotificationReader
        var steps: [QuerySchedule.Lane: Int] = [:]
        private var lane = QuerySchedule.Lane.quick

        init(loop: EmbeddedEventLoop, reader: NotificationReader) {
            self.loop = loop
            self.reader = reader
            reader.connection.interrupt(every: QuickLaneTests.stepsPerTick) { [unowned self] in
                steps[lane, default: 0] += Int(QuickLaneTests.stepsPerTick)
                return false
            }
        }

        func run<T: Sendable>(
            for user: UInt32, until call: (any CallLifetime)?, _ work: @escaping @Sendable (NotificationReader) throws -> T
        ) -> EventLoopFuture<T> {
            lane = .quick
            return loop.makeCompletedFuture(Result { try work(reader) })
        }

        func scan<T: Sendable>(
            for user: UInt32, until call: (any CallLifetime)?, _ piece: @escaping @Sendable (NotificationReader) throws -> T?
        ) -> EventLoopFuture<T> {
            lane = .scan
            return loop.makeCompletedFuture(Result {
                while true {
                    if let result = try piece(reader) { return result }
                }
            })
        }
    }

    static let stepsPerTick: Int32 = 64
    static let rows = 40_000
    static let alice: UInt32 = 1001

    let loop = EmbeddedEventLoop()
    let directory: TemporaryDirectory
    let queries: CountingQueries
    let api: LocalAPI

    init() throws {
        // Every row but the oldest is addressed to bob, and alice has read them all: whatever
        // alice filters by, her pages find nothing (or the oldest row) until they have walked
        // every id.
        directory = try TemporaryDirectory("quick-lane")
        let store = try NotificationStore(path: directory.file())
        for batch in stride(from: 0, to: Self.rows, by: 1000) {
            _ = try store.store((batch..<batch + 1000).map { index in
                var push = Push(payload: .text("{}"), messageID: "row-\(index)", title: "t", body: "b", receivedAt: 1000 + Int64(index))
                push.recipients = index == 0 ? nil : "bob"
                return push
            }, liveState: nil)
        }
        let writer = try SQLiteConnection(path: directory.file())
        try writer.execute("INSERT INTO notification_reads (notification_id, reader, read_at) SELECT id, \(Self.alice), 1 FROM notifications")
        queries = CountingQueries(loop: loop, reader: try NotificationReader(path: directory.file()))
        api = LocalAPITests.api(loop: loop, queries: queries)
    }

    /// Alice's filters, none served by an index, and what each selects of her rows.
    static let filters: [(name: String, json: String, selected: Int)] = [
        ("none (whose eyes)", "{}", 1),
        ("unread", #"{"unread":true}"#, 0),
        ("since", #"{"since":9000000}"#, 0),
        ("until", #"{"until":1000}"#, 0),
        ("priority", #"{"priority":5}"#, 0),
        ("mine", #"{"mine":true}"#, 1),
        ("grep", #"{"grep":"no such words"}"#, 0),
    ]

    /// The filter as the local API reads it, with alice's eyes.
    func query(_ filter: String) throws -> NotificationQuery {
        let parsed = try NotificationsInterface.Filter(varlink: try #require(JSONValue.parse(filter)), at: "", strict: true)
        var (query, mine) = try NotificationQuery.reading(filter: parsed).get()
        query.viewer = Viewer(userID: Int64(Self.alice), userName: "alice", visibleNames: ["alice"])
        if mine { query.recipients = RecipientFilter(names: ["alice"]) }
        return query
    }

    /// The steps `read` takes, run as a quick-lane read.
    func steps(_ read: @escaping @Sendable (NotificationReader) throws -> Void) -> Int {
        queries.steps = [:]
        _ = queries.run(for: Self.alice, until: nil, read)
        return queries.steps[.quick, default: 0]
    }

    func call(_ method: String, _ parameters: String) throws -> JSONValue? {
        let channel = EmbeddedChannel(loop: loop)
        let identity = PeerIdentity(userID: Self.alice, groupID: Self.alice, processID: 1, groupIDs: [Self.alice])
        try channel.pipeline.syncOperations.addHandlers(VarlinkPipeline.handlers(
            service: api, identity: identity, admission: VarlinkAdmission(limits: VarlinkLimits(), eventLoop: loop),
            connections: VarlinkConnections(eventLoop: loop)))
        try channel.connect(to: SocketAddress(unixDomainSocketPath: "/tmp/quick-lane-test")).wait()
        queries.steps = [:]
        try channel.writeInbound(ByteBuffer(string: #"{"method":"io.intrapush.Notifications.\#(method)","parameters":\#(parameters)}"# + "\u{0}"))
        var buffer = try #require(try channel.readOutbound(as: ByteBuffer.self))
        return JSONValue.parse(buffer.readString(length: buffer.readableBytes)!.trimmingCharacters(in: ["\u{0}"]))
    }

    @Test("a List of 20 and a Count: on the quick lane no more than a walk of its first piece, and the right answer", arguments: filters.indices)
    func bounded(_ index: Int) throws {
        let (name, filter, selected) = Self.filters[index]
        var page = try query(filter)
        page.limit = 20
        // What the quick lane may do: the same read over the newest ids of a first piece, and
        // a few lookups (the ids' bounds, the time index's count).
        var firstPiece = page
        firstPiece.idRange = Int64(Self.rows) - QueryRunner.idsPerQuickPiece + 1...Int64(Self.rows)
        let (pieceOfList, pieceOfCount) = (firstPiece, { var count = firstPiece; count.limit = nil; return count }())
        let listBound = steps { _ = try $0.plainRecords(pieceOfList) } * 5 / 4 + 2000
        let countBound = steps { _ = try $0.plainCount(pieceOfCount) } * 5 / 4 + 2000
        // What 0.6 did there: one statement over the whole table.
        let (wholeList, wholeCount) = (page, { var count = page; count.limit = nil; return count }())
        let whole = (list: steps { _ = try $0.plainRecords(wholeList) }, count: steps { _ = try $0.plainCount(wholeCount) })

        let listed = try call("List", #"{"filter":\#(filter),"limit":20}"#)
        guard case .array(let rows)? = listed?["parameters"]?["notifications"] else {
            Issue.record("\(name): List answered \(String(describing: listed))")
            return
        }
        #expect(rows.count == selected, "\(name)")
        let listQuick = queries.steps[.quick, default: 0]
        #expect(listQuick <= listBound, "\(name): List took \(listQuick) steps on the quick lane; a first piece's walk \(listBound), the whole table's \(whole.list)")

        let counted = try call("Count", #"{"filter":\#(filter)}"#)
        #expect(counted?["parameters"]?["count"] == .number("\(selected)"), "\(name): \(String(describing: counted))")
        let countQuick = queries.steps[.quick, default: 0]
        #expect(countQuick <= countBound, "\(name): Count took \(countQuick) steps on the quick lane; a first piece's walk \(countBound), the whole table's \(whole.count)")
        // The table makes a walk of it costly: the bounds above are a small share of one (the
        // time and the urgency have indexes: one statement reads them without a walk too).
        if page.since == nil, page.until == nil, page.minimumPriority == nil {
            #expect(whole.list >= listBound * 4 && whole.count >= countBound * 4, "\(name): \(whole) against \(listBound), \(countBound)")
        }
    }

    @Test("a time range of few rows is found through the index of times, with no walk, wherever it is")
    func timeRange() throws {
        // The oldest 100 rows: a walk from the newest id would pass 39,900 others.
        let listed = try call("List", #"{"filter":{"until":1100,"mine":true},"limit":20}"#)
        let scanned = queries.steps[.scan, default: 0]
        guard case .array(let rows)? = listed?["parameters"]?["notifications"] else {
            Issue.record("List answered \(String(describing: listed))")
            return
        }
        #expect(rows.count == 1 && scanned == 0, "\(rows.count) rows, \(scanned) steps on the scan lane")
        let counted = try call("Count", #"{"filter":{"since":1000,"until":1100}}"#)
        #expect(counted?["parameters"]?["count"] == .number("1") && queries.steps[.scan, default: 0] == 0)
    }

    @Test("a Count of the unread is read from indexes; where the sets it subtracts are large, on the scan lane")
    func countedFromIndexes() throws {
        // Alice has 40,000 marks and 39,999 rows are addressed to bob: the subtraction walks both.
        let unread = try query(#"{"unread":true}"#)
        let onQuickLane = steps { try #require(try $0.count(unread) == 0) }
        let counted = try call("Count", #"{"filter":{"unread":true}}"#)
        #expect(counted?["parameters"]?["count"] == .number("0"))
        let (quick, scan) = (queries.steps[.quick, default: 0], queries.steps[.scan, default: 0])
        #expect(quick * 4 <= onQuickLane && scan * 10 >= onQuickLane * 9, "quick \(quick), scan \(scan), the count alone \(onQuickLane)")
    }
}
