// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import TestSupport
import Glibc
#endif
import Foundation
import Testing

@testable import IntrapushInterface
@testable import IntrapushStore
@testable import IntrapushSupport

/// Who may do what through the local API, and what each person sees and marks, on a real
/// database made by the production store.
@Suite("Access: grants by the kernel's groups, and per-person marks")
struct AccessPolicyTests {
    @Test("readers, senders and administrators by the kernel's groups; root and the daemon's user may do all")
    func accessPolicy() {
        let policy = AccessPolicy(everyoneReads: false, readerGroupID: 900, senderGroupID: 901, adminGroupID: 902, daemonUserID: 990)
        func grant(_ uid: UInt32, _ groups: [UInt32]) -> Grant { policy.grant(userID: uid, groupIDs: groups) }
        #expect(grant(1000, [1000]) == Grant(reads: false, readsAll: false, sends: false))
        #expect(grant(1000, [1000, 900]) == Grant(reads: true, readsAll: false, sends: false))
        #expect(grant(1000, [1000, 901]) == Grant(reads: false, readsAll: false, sends: true))
        #expect(grant(1000, [1000, 902]) == Grant(reads: true, readsAll: true, sends: false))
        #expect(grant(0, []) == Grant(reads: true, readsAll: true, sends: true))
        #expect(grant(990, [990]) == Grant(reads: true, readsAll: true, sends: true))
        var everyone = policy
        everyone.everyoneReads = true
        #expect(everyone.grant(userID: 1000, groupIDs: [1000]).reads)
        let missingGroups = AccessPolicy(everyoneReads: false, readerGroupID: nil, senderGroupID: nil, adminGroupID: nil, daemonUserID: 990)
        #expect(missingGroups.grant(userID: 1000, groupIDs: [0]).reads == false)
    }

    @Test("alice sees hers, the team's and everyone's; her marks are hers; an id she may not see is missing")
    func perPersonMarks() throws {
        let directory = try TemporaryDirectory("access")
        let path = directory.file()
        let store = try NotificationStore(path: path)
        func push(_ id: String, to recipients: String?) -> Push {
            var push = Push(payload: .text("{}"), messageID: id, title: id, body: nil, receivedAt: 1)
            push.recipients = recipients
            return push
        }
        _ = try store.store([push("alice", to: "alice"), push("bob", to: "bob"), push("team", to: "team"), push("all", to: nil)], liveState: nil)
        let alice = Viewer(userID: 1001, userName: "alice", visibleNames: ["alice", "team"])
        let bob = Viewer(userID: 1002, userName: "bob", visibleNames: ["bob", "team"])
        let reader = try NotificationReader(path: path)
        func titles(_ viewer: Viewer, unread: Bool = false) throws -> [String] {
            var query = NotificationQuery(unreadOnly: unread, order: .oldestFirst)
            query.viewer = viewer
            return try reader.records(query).compactMap(\.title)
        }
        #expect(try titles(alice) == ["alice", "team", "all"])
        #expect(try titles(bob) == ["bob", "team", "all"])
        #expect(try reader.notification(id: 2, viewer: alice) == nil, "bob's is not alice's to show")

        let template = ReadReceiptTemplate(text: #"{"type":"read","id":"{message_id}","by":"{user}"}"#, idField: "rid", maximumSize: 4096, timeToLive: nil)
        let marked = try store.markRead(ids: [2, 3, 4], for: alice, at: 10, receipts: template)
        #expect(marked.missing == [2], "bob's counts as missing, as one that does not exist")
        #expect(marked.marked == 2 && marked.receipts == 2)
        #expect(try titles(alice, unread: true) == ["alice"])
        #expect(try titles(bob, unread: true) == ["bob", "team", "all"], "alice's marks are not bob's")
        let receipt = try SQLiteConnection(path: path, mode: .readOnly).prepare("SELECT payload FROM outbox ORDER BY id LIMIT 1")
        try receipt.step()
        #expect(receipt.string(at: 0)?.contains(#""by":"alice""#) == true)
        let all = try store.markRead(ids: nil, for: bob, at: 20, receipts: nil)
        #expect(all.marked == 3)
        #expect(try titles(bob, unread: true).isEmpty)
        #expect(try titles(alice, unread: true) == ["alice"])
        // Counts are sums over the small sets (NotificationReader.countByArithmetic); they agree
        // with the rows for each person, with a mark from before per-person marks on a row one of
        // them may not see, and for an administrator.
        _ = try store.store([push("old", to: "bob"), push("new", to: nil)], liveState: nil)
        try SQLiteConnection(path: path).execute("INSERT INTO notification_reads VALUES (5, -1, 1)")
        let admin = Viewer(userID: 1001, userName: "alice", visibleNames: nil)
        for viewer in [alice, bob, admin, Viewer(userID: 7, userName: nil, visibleNames: [])] {
            for unread in [false, true] {
                var query = NotificationQuery(unreadOnly: unread)
                query.viewer = viewer
                #expect(try reader.count(query) == Int64(try titles(viewer, unread: unread).count), "\(viewer.visibleNames ?? ["all"]), unread \(unread)")
            }
        }
        var unreadForAdmin = NotificationQuery(unreadOnly: true)
        unreadForAdmin.viewer = admin
        #expect(try reader.count(unreadForAdmin) == 3, "bob's, alice's own and the new one")
    }

    @Test("a database of 0.3 keeps its marks: each read_at it had counts as read for everyone")
    func upgradeKeepsMarks() throws {
        let directory = try TemporaryDirectory("access")
        let path = directory.file()
        let connection = try SQLiteConnection(path: path)
        try Migrator(migrations: Array(Schema.migrations.prefix(5))).migrate(connection)
        try connection.execute("""
            INSERT INTO notifications (message_id, received_at, payload, title, read_at) VALUES ('a', 1, '{}', 'read', 5);
            INSERT INTO notifications (message_id, received_at, payload, title) VALUES ('b', 2, '{}', 'unread');
            """)
        try Schema.migrator.migrate(connection)
        let reader = try NotificationReader(path: path)
        for viewer in [Viewer(userID: 1001, userName: "alice", visibleNames: ["alice"]), Viewer(userID: 0, userName: "root", visibleNames: nil)] {
            var query = NotificationQuery(unreadOnly: true)
            query.viewer = viewer
            #expect(try reader.records(query).map(\.title) == ["unread"])
            #expect(try reader.count(query) == 1)
            #expect(try reader.notification(id: 1, viewer: viewer)?.readAt == 5, "the mark's time is kept")
        }
    }
}
