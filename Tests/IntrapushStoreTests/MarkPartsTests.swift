// SPDX-License-Identifier: Apache-2.0

import TestSupport
import Foundation
import IntrapushSupport
import Testing

@testable import IntrapushStore

/// The daemon's marks in parts on a real file: several callers' parts in one transaction, a
/// mark of everything piece after piece up to the bound its first part found, and a failed
/// transaction that leaves nothing of its parts.
@Suite("Marks in parts")
struct MarkPartsTests {
    static func pushes(_ count: Int) -> [Push] {
        (1...count).map { Push(payload: .text("{}"), messageID: "m-\($0)", title: "t\($0)", body: nil, receivedAt: Int64($0)) }
    }

    static func unread(_ store: NotificationStore, for viewer: Viewer) throws -> Int64 {
        let connection = try SQLiteConnection(path: store.path, mode: .readOnly)
        return try connection.integer("SELECT count(*) FROM notifications WHERE " + viewer.unreadCondition(schemaVersion: Schema.latestVersion))
    }

    @Test("two people's marks in one transaction, each with its own outcome and receipts")
    func partsTogether() throws {
        let directory = try TemporaryDirectory("store")
        let store = try NotificationStore(path: directory.file())
        _ = try store.store(Self.pushes(10), liveState: nil)
        let alice = Viewer(userID: 1001, userName: "alice", visibleNames: nil)
        let bob = Viewer(userID: 1002, userName: "bob", visibleNames: nil)
        let template = ReadReceiptTemplate(text: #"{"id":"r-{message_id}-{user}","read":"{message_id}"}"#, idField: "id", maximumSize: 4096, timeToLive: nil)
        let results = try store.markParts([
            MarkPart(viewer: alice, receipts: template, work: .ids([1, 2, 99])),
            MarkPart(viewer: bob, receipts: nil, work: .ids([2])),
        ], at: 50)
        #expect(results.map(\.outcome) == [.init(marked: 2, missing: [99], receipts: 2), .init(marked: 1)])
        #expect(try Self.unread(store, for: alice) == 8 && Self.unread(store, for: bob) == 9)
    }

    @Test("a receipt is read from the outbox only once its mark is durable: by the caller's word, or a commit SQLite synced")
    func receiptsWaitForTheSync() throws {
        let directory = try TemporaryDirectory("store")
        let store = try NotificationStore(path: directory.file())
        store.onCommit(walPages: { _ in })  // counts the commits, as the daemon's store does
        _ = try store.store(Self.pushes(3), liveState: nil)
        let alice = Viewer(userID: 1001, userName: "alice", visibleNames: nil)
        let template = ReadReceiptTemplate(text: #"{"id":"r-{message_id}","read":"{message_id}"}"#, idField: "id", maximumSize: 4096, timeToLive: nil)
        _ = try store.markParts([MarkPart(viewer: alice, receipts: template, work: .ids([1, 2]))], at: 5, syncing: .byCaller)
        #expect(try store.undeliveredOutbox(after: 0, limit: 10).isEmpty, "committed, not yet synced: nothing leaves")
        store.receiptsDurable(through: store.commitsWritten)
        #expect(try store.undeliveredOutbox(after: 0, limit: 10).count == 2)

        _ = try store.markParts([MarkPart(viewer: alice, receipts: template, work: .ids([3]))], at: 6, syncing: .byCaller)
        #expect(try store.undeliveredOutbox(after: 0, limit: 10).count == 2, "the third waits for its sync")
        _ = try store.store([Push(payload: .text("{}"), messageID: "later", title: nil, body: nil, receivedAt: 7)], liveState: nil)
        #expect(try store.undeliveredOutbox(after: 0, limit: 10).count == 3, "a commit synced by SQLite carries the mark before it")
    }

    @Test("a mark of everything in parts: after the last id, up to the newest at its first part; later pushes stay unread")
    func allInParts() throws {
        let directory = try TemporaryDirectory("store")
        let store = try NotificationStore(path: directory.file())
        _ = try store.store(Self.pushes(10), liveState: nil)
        let alice = Viewer(userID: 1001, userName: "alice", visibleNames: nil)
        let first = try store.markParts([MarkPart(viewer: alice, receipts: nil, work: .unread(after: 0, upTo: nil, limit: 4))], at: 1)[0]
        #expect(first == MarkPart.Result(outcome: .init(marked: 4), lastID: 4, upTo: 10, isExhausted: false))
        _ = try store.store([Push(payload: .text("{}"), messageID: "late", title: nil, body: nil, receivedAt: 11)], liveState: nil)
        var part = first
        var marked = first.outcome.marked
        while !part.isExhausted {
            part = try store.markParts([MarkPart(viewer: alice, receipts: nil, work: .unread(after: part.lastID, upTo: part.upTo, limit: 4))], at: 2)[0]
            marked += part.outcome.marked
        }
        #expect(marked == 10)
        #expect(try Self.unread(store, for: alice) == 1, "the push that came after the mark began is still unread")
    }

    @Test("a part that fails rolls back the whole transaction")
    func failureRollsBack() throws {
        let directory = try TemporaryDirectory("store")
        let store = try NotificationStore(path: directory.file())
        _ = try store.store(Self.pushes(3), liveState: nil)
        let alice = Viewer(userID: 1001, userName: "alice", visibleNames: nil)
        // A receipt template whose receipts are refused (not a JSON object): the second part throws.
        let broken = ReadReceiptTemplate(text: "not json {message_id}", idField: "id", maximumSize: 4096, timeToLive: nil)
        #expect(throws: (any Error).self) {
            try store.markParts([
                MarkPart(viewer: alice, receipts: nil, work: .ids([1])),
                MarkPart(viewer: alice, receipts: broken, work: .ids([2])),
            ], at: 5)
        }
        #expect(try Self.unread(store, for: alice) == 3, "nothing of the slice stays")
    }
}
