// SPDX-License-Identifier: Apache-2.0

import TestSupport
import Foundation
import IntrapushInterface
import IntrapushStore
import NIOConcurrencyHelpers
import Testing

extension Integration {
    @Suite("A mark of everything, in parts")
    struct MarkAllTests {
        /// A mark of all is committed in parts between turns of pushes: a SIGKILL in the middle
        /// leaves each part whole (every notification marked has its read receipt, none more),
        /// and the next mark of all marks the rest, without a second receipt for any.
        @Test("a mark of all killed in the middle leaves whole parts; the next one marks the rest, each receipt once")
        func killedInTheMiddle() async throws {
            let directory = try TemporaryDirectory("it")
            let token = makeToken()
            let server = try await DevServerHandle(directory: directory, token: token)
            let database = directory.file(DaemonHandle.databaseName)
            let rows = 50_000
            let store = try NotificationStore(path: database)
            // Received now: retention would prune older ones beside the marks.
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            _ = try store.store((1...rows).map {
                Push(payload: .text(#"{"id":"m-\#($0)"}"#), messageID: "m-\($0)", title: "t\($0)", body: nil, receivedAt: now - Int64(rows - $0))
            }, liveState: nil)
            let extra = ["read_receipt_text": #"'{"type":"read","id":"r-{message_id}"}'"#]
            let first = try DaemonHandle(directory: directory, serverPort: server.port, token: token, extra: extra)
            try await server.waitFor("the daemon to connect") { $0.connectionsOpen == 1 }
            let socket = database + ".sock"
            let reader = DaemonDatabase(path: database)
            let marks = "SELECT count(*) FROM notification_reads WHERE reader = \(getuid())"
            let receipts = "SELECT count(*) FROM outbox WHERE kind = 'read_receipt'"

            Thread {
                _ = try? LocalAPIClient(path: socket).call(NotificationsInterface.MarkRead.self, .init(all: true))
            }.start()
            try await eventually(timeout: .seconds(30), interval: .milliseconds(1), "some of the mark committed") {
                (try? reader.integer(marks)) ?? 0 > 0
            }
            first.process.signal(SIGKILL)
            _ = try await first.process.waitForExit()
            let markedBefore = try reader.integer(marks)
            #expect(markedBefore > 0 && markedBefore < rows, "killed in the middle: \(markedBefore) of \(rows) marked")
            #expect(try reader.integer(receipts) == markedBefore, "each part whole: a receipt for every mark, none more")
            #expect(try reader.strings("PRAGMA integrity_check") == ["ok"])

            let second = try DaemonHandle(restarting: first, directory: directory, name: "intrapushd-2")
            try await server.waitFor("the daemon to connect again") { $0.connectionsOpen == 1 }
            let outcome = try LocalAPIClient(path: socket).call(NotificationsInterface.MarkRead.self, .init(all: true))
            #expect(Int64(outcome.marked) == Int64(rows) - markedBefore, "the rest, and only the rest")
            #expect(try reader.integer(marks) == Int64(rows))
            #expect(try reader.integer(receipts) == Int64(rows), "one receipt each")
            #expect(try reader.integer("SELECT count(DISTINCT message_id) FROM outbox WHERE kind = 'read_receipt'") == Int64(rows))
            _ = second
        }
    }
}
