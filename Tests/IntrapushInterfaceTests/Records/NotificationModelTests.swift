// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import TestSupport
import Glibc
#endif
import IntrapushStore
import Testing

@testable import IntrapushInterface

/// Priority, link and recipients: stored by the daemon's store, read back by every program beside
/// it, and read as NULL from a file an older daemon wrote.
@Suite("Priority, link and recipients in the database")
struct NotificationModelTests {
    func push(_ id: String, priority: NotificationPriority? = nil, link: String? = nil, to recipients: String? = nil) -> Push {
        var push = Push(payload: .text("{}"), messageID: id, title: id, body: nil, receivedAt: 1)
        push.priority = priority
        push.link = link
        push.recipients = recipients
        return push
    }

    /// The unread notifications with ids in `range` that `recipients` selects: how many, and the
    /// newest `newest` of them, oldest first.
    func unread(
        _ reader: NotificationReader, in range: ClosedRange<Int64>, newest: Int, recipients: RecipientFilter?
    ) throws -> (records: [NotificationRecord], count: Int64) {
        var query = NotificationQuery(unreadOnly: true, limit: newest, order: .newestFirst)
        query.idRange = range
        query.recipients = recipients
        return (try reader.records(query).reversed(), try reader.count(query))
    }

    @Test("stored and read back; the unread selection picks this person's newest and counts the rest")
    func roundTrip() throws {
        let directory = try TemporaryDirectory("model")
        let path = directory.file()
        let store = try NotificationStore(path: path)
        _ = try store.store([
            push("a", priority: .urgent, link: "https://x", to: nil),
            push("b", to: "ann\nops"),
            push("c", to: "bob"),
            push("d", to: ""),
            push("e", to: "joanne"),
            push("f", priority: .low),
        ], liveState: nil)
        let reader = try NotificationReader(path: path)
        let all = try unread(reader, in: 1...6, newest: 10, recipients: nil)
        #expect(all.count == 6)
        #expect(all.records.first?.priority == .urgent)
        #expect(all.records.first?.link == "https://x")
        #expect(all.records[1].recipientNames == ["ann", "ops"])
        let ann = RecipientFilter(names: ["ann", "staff"])
        let mine = try unread(reader, in: 1...6, newest: 2, recipients: ann)
        // a (everyone), b (ann), f (everyone); not bob's, not the one addressed to no one, and not
        // joanne's although her name holds "ann".
        #expect(mine.count == 3)
        #expect(mine.records.map(\.messageID) == ["b", "f"])
        let ops = try unread(reader, in: 1...6, newest: 10, recipients: RecipientFilter(names: ["someone", "ops"]))
        #expect(ops.records.map(\.messageID) == ["a", "b", "f"])
        #expect(ops.records.allSatisfy { RecipientFilter(names: ["someone", "ops"]).selects($0) })
    }

    @Test("a file of schema 4 reads with no priority, link or recipients, and everything for everyone")
    func olderFile() throws {
        let directory = try TemporaryDirectory("model")
        let path = directory.file()
        let connection = try SQLiteConnection(path: path)
        try Migrator(migrations: Array(Schema.migrations.prefix(4))).migrate(connection)
        try connection.execute(
            "INSERT INTO notifications (message_id, received_at, payload, title) VALUES ('old', 1, '{}', 'from before')")
        let reader = try NotificationReader(path: path)
        #expect(try reader.database.schemaVersion() == 4)
        let found = try unread(reader, in: 1...1, newest: 5, recipients: RecipientFilter(names: ["ann"]))
        #expect(found.count == 1)
        #expect(found.records.first?.priority == nil && found.records.first?.link == nil)
        #expect(found.records.first?.recipients == nil)
        // The daemon migrates it; a reader that stays open sees the new columns from then on.
        try Schema.migrator.migrate(connection)
        try connection.execute(
            "INSERT INTO notifications (message_id, received_at, payload, title, priority) VALUES ('new', 2, '{}', 'after', 4)")
        #expect(try unread(reader, in: 1...2, newest: 5, recipients: nil).records.last?.priority == .high)
    }
}
