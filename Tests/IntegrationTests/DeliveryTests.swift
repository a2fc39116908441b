// SPDX-License-Identifier: Apache-2.0

import TestSupport
import Foundation
@testable import IntrapushInterface
import IntrapushStore
import Testing

extension Integration {
    @Suite("Delivery: store, then acknowledge")
    struct DeliveryTests {
        /// Every push is stored once and acknowledged only after its row is visible to another connection.
        @Test("1,000 pushes: all stored once, each acknowledged only after commit, acks in order")
        func thousandPushes() async throws {
            let (_, _, server, daemon) = try await startConnected(verifyingDatabase: true)
            let database = daemon.databasePath

            _ = try await server.client.burst(count: 1000, size: 300, prefix: "k-")
            let stats = try await server.waitFor("1,000 acknowledgements") { $0.acked == 1000 }

            #expect(stats.acks == 1000, "exactly one acknowledgement per push")
            #expect(stats.acksBeforeCommit == 0, "no push acknowledged before its row was visible")
            #expect(stats.ackMismatches == 0)
            #expect(stats.unacked == 0)
            let reader = DaemonDatabase(path: database)
            #expect(try reader.integer("SELECT count(*) FROM notifications") == 1000)
            #expect(try reader.integer("SELECT count(DISTINCT message_id) FROM notifications") == 1000)
            // Stored in arrival order: local ids follow the server's sequence.
            let ids = try reader.strings("SELECT message_id FROM notifications ORDER BY id")
            #expect(ids.first == "k-1" && ids.last == "k-1000")
            #expect(try reader.integer("SELECT count(*) FROM notifications WHERE title IS NULL OR body IS NULL") == 0)
            _ = daemon
        }

        @Test("the token in Authorization: Bearer, on a path without it: connected, and the path carries no token")
        func tokenInAHeader() async throws {
            let (_, token, server, daemon) = try await startConnected(extra: [
                "path": #""/connect/{client}/{org}""#, "headers": #"["Authorization: Bearer {token}"]"#,
            ])
            _ = try await server.client.push(#"{"id":"by-header","title":"t"}"#)
            try await server.waitFor("the push to be acknowledged") { $0.acked == 1 }
            let status = try DaemonDatabase(path: daemon.databasePath).liveState()
            #expect(status?.state == .connected)
            #expect(!daemon.log.contains(token), "the token reaches no log line")
            let stats = try await server.stats()
            #expect(stats.upgradesRejected == 0 && stats.ackMismatches == 0)
        }

        @Test("a duplicate id is acknowledged again but stored once")
        func duplicateAckedNotStoredTwice() async throws {
            let (_, _, server, daemon) = try await startConnected()

            for _ in 0..<2 {
                _ = try await server.client.push(#"{"id":"dup-1","title":"Twice","body":"same id"}"#)
            }
            _ = try await server.client.push("no id here")
            let stats = try await server.waitFor("three acknowledgements") { $0.acked == 3 }
            #expect(stats.acks == 3)
            let reader = DaemonDatabase(path: daemon.databasePath)
            #expect(try reader.integer("SELECT count(*) FROM notifications WHERE message_id = 'dup-1'") == 1)
            #expect(try reader.integer("SELECT count(*) FROM notifications") == 2)
            #expect(try reader.strings("SELECT payload FROM notifications WHERE message_id IS NULL") == ["no id here"])
            try await eventually("the live state to count the duplicate") {
                try reader.liveState()?.duplicateTotal == 1
            }
        }

        @Test("binary frames are stored: valid UTF-8 as text, other bytes as a BLOB")
        func binaryFrames() async throws {
            let (_, _, server, daemon) = try await startConnected()
            _ = try await server.client.pushBinary(Array(#"{"id":"bin-1","title":"Binary"}"#.utf8))
            _ = try await server.client.pushBinary([0xFF, 0xFE, 0x00, 0x01])
            try await server.waitFor("two acknowledgements") { $0.acked == 2 }
            let reader = DaemonDatabase(path: daemon.databasePath)
            #expect(try reader.strings("SELECT title FROM notifications WHERE message_id = 'bin-1'") == ["Binary"])
            #expect(try reader.strings("SELECT typeof(payload) FROM notifications ORDER BY id") == ["text", "blob"])
            #expect(try reader.integer("SELECT length(payload) FROM notifications WHERE typeof(payload) = 'blob'") == 4)
        }

        @Test("heartbeats and pings go out at the configured interval")
        func heartbeatsAtInterval() async throws {
            let directory = try TemporaryDirectory("it")
            let token = makeToken()
            let server = try await DevServerHandle(directory: directory, token: token)
            let daemon = try DaemonHandle(directory: directory, serverPort: server.port, token: token, extra: ["heartbeat_interval": "\"250ms\""])
            let stats = try await server.waitFor("six heartbeats") { $0.heartbeats >= 6 }
            #expect(stats.pings >= 5, "a WebSocket ping goes with each heartbeat")
            let times = stats.heartbeatTimesMilliseconds
            let gaps = zip(times.dropFirst(), times).map { $0 - $1 }
            // The cadence is the interval, not faster and not drifting: loose bounds for a busy machine.
            #expect(gaps.allSatisfy { $0 >= 200 && $0 <= 450 }, "gaps between heartbeats: \(gaps)")
            let average = Double(gaps.reduce(0, +)) / Double(gaps.count)
            #expect(abs(average - 250) < 40, "average gap \(average) ms")
            // Heartbeats are never stored.
            #expect(try DaemonDatabase(path: daemon.databasePath).integer("SELECT count(*) FROM notifications") == 0)
        }

        @Test("a push that cannot be stored is not acknowledged; the connection drops and it comes again")
        func unstorablePushNotAcknowledged() async throws {
            let (_, _, server, daemon) = try await startConnected()
            // A real database failure for one message, made through a second connection.
            let writer = try SQLiteConnection(path: daemon.databasePath, mode: .readWriteCreate)
            try writer.execute("""
                CREATE TRIGGER refuse_poison BEFORE INSERT ON notifications
                WHEN NEW.message_id = 'poison' BEGIN SELECT RAISE(ABORT, 'refused by test'); END
                """)
            _ = try await server.client.push(#"{"id":"poison","title":"cannot be stored"}"#)
            let failing = try await server.waitFor("two failed deliveries") { $0.deliveries >= 2 && $0.connectionsTotal >= 2 }
            #expect(failing.acks == 0, "nothing acknowledged while the store fails")
            #expect(daemon.log.contains("could not store a push"))
            #expect(daemon.process.isRunning)

            try writer.execute("DROP TRIGGER refuse_poison")
            try await server.waitFor("the push to be acknowledged once it can be stored") { $0.acked == 1 }
            let reader = DaemonDatabase(path: daemon.databasePath)
            #expect(try reader.integer("SELECT count(*) FROM notifications WHERE message_id = 'poison'") == 1)
        }
    }
}
