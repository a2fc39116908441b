// SPDX-License-Identifier: Apache-2.0

import TestSupport
import Foundation
import IntrapushConfiguration
import IntrapushQuery
@testable import IntrapushInterface
import IntrapushStore
import NIOConcurrencyHelpers
import Testing

extension Integration {
    @Suite("Outbox under faults")
    struct OutboxChaosTests {
        static let messages = 10_000
        static let pushes = 10_000
        static let cuts = 20
        static let kills = 5

        /// The issue's test: both directions at once, through cut connections and SIGKILLs. Messages
        /// are queued through the CLI's own code (`WriteAccess`) from four threads, retried with the
        /// same id when a kill cut the answer off, as a careful caller would.
        /// Two minutes of a serial suite: make test runs it (INTRAPUSH_LONG_TESTS=1), make check not,
        /// so that make check stays within its minutes on 2 cores.
        static let isLong = ProcessInfo.processInfo.environment["INTRAPUSH_LONG_TESTS"] == "1"

        @Test(
            "10,000 messages and 10,000 pushes through 20 cuts and 5 SIGKILLs: none lost, none early, queue order per connection",
            .enabled(if: isLong, "a long test: make test runs it (INTRAPUSH_LONG_TESTS=1)"))
        func messagesAndPushesThroughFaults() async throws {
            let (directory, _, server, firstDaemon) = try await startConnected(verifyingDatabase: true)
            let database = firstDaemon.databasePath
            let writer = WriteAccess(
                databasePath: database, configuration: Configuration(host: "h", org: "o", token: Secret(""), database: database))
            let queuedIDs = NIOLockedValueBox<[String]>([])
            let senders = (0..<4).map { sender in
                Task.detached {
                    for n in 0..<(Self.messages / 4) {
                        let id = "m-\(sender)-\(n)"
                        while true {
                            do {
                                _ = try writer.queue(#"{"id":"\#(id)","n":\#(n)}"#)
                                break
                            } catch let failure as CommandFailure where failure.kind == .temporaryFailure {
                                break  // committed before the kill cut the answer off; it still waits
                            } catch {
                                try await Task.sleep(for: .milliseconds(5))  // the daemon was killed mid-answer
                            }
                        }
                        queuedIDs.withLockedValue { $0.append(id) }
                    }
                }
            }

            var daemon = firstDaemon
            var kills = 0
            var cuts = 0
            for step in 0..<(Self.cuts + Self.kills) {
                _ = try await server.client.burst(count: Self.pushes / (Self.cuts + Self.kills), size: 200, prefix: "p\(step)-")
                let queuedBefore = queuedIDs.withLockedValue { $0.count }
                try await eventually(timeout: .seconds(30), "progress before fault \(step)") {
                    queuedIDs.withLockedValue { $0.count } > queuedBefore || queuedBefore == Self.messages
                }
                if step % 5 == 4 {
                    daemon.process.signal(SIGKILL)
                    #expect(try await daemon.process.waitForExit() == 128 + SIGKILL)
                    kills += 1
                    daemon = try DaemonHandle(restarting: daemon, directory: directory, name: "intrapushd-\(step)")
                } else {
                    try await server.client.control("drop")
                    cuts += 1
                }
                try await server.waitFor("a connection again after fault \(step)") { $0.connectionsOpen == 1 }
            }
            for sender in senders { try await sender.value }
            #expect(kills == Self.kills && cuts == Self.cuts)
            let connections = try await server.stats().connectionsTotal
            #expect(connections > Self.cuts + Self.kills, "every fault really ended a connection (\(connections) connections)")

            let expected = Set(queuedIDs.withLockedValue { $0 })
            #expect(expected.count == Self.messages)
            try await server.waitFor("every push acknowledged", timeout: .seconds(60)) { $0.acked == Self.pushes }
            var report = try await server.client.upstream()
            try await eventually(timeout: .seconds(60), interval: .milliseconds(250), "every message at the server") {
                report = try await server.client.upstream()
                return report.distinct >= Self.messages
            }
            let received = Set(report.messages.map(\.id))
            #expect(expected.isSubset(of: received), "every message reached the server at least once")
            let uncommitted = report.messages.filter { !$0.committed }.count
            #expect(uncommitted == 0, "no message was sent before it was committed")

            let reader = DaemonDatabase(path: database)
            let rows = try reader.strings("SELECT message_id || ' ' || id FROM outbox").compactMap { $0?.split(separator: " ") }
            var rowOf: [String: Int64] = [:]
            var repeated: Set<String> = []
            for row in rows {
                if rowOf.updateValue(Int64(row[1])!, forKey: String(row[0])) != nil { repeated.insert(String(row[0])) }
            }
            for (connection, messages) in Dictionary(grouping: report.messages, by: \.connection) {
                let order: [Int64] = messages.filter { !repeated.contains($0.id) }.compactMap { rowOf[$0.id] }
                #expect(order == order.sorted() && Set(order).count == order.count, "queue order on connection \(connection)")
            }
            try await eventually("every message recorded delivered") {
                try reader.integer("SELECT count(*) FROM outbox WHERE state <> 'delivered'") == 0
            }
            let stats = try await server.stats()
            #expect(stats.acksBeforeCommit == 0, "no push acknowledged before its commit")
            #expect(try reader.integer("SELECT count(*) FROM notifications") == Int64(Self.pushes))
            #expect(try reader.integer("SELECT count(DISTINCT message_id) FROM notifications") == Int64(Self.pushes))
            _ = daemon
        }
    }
}
