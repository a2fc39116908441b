// SPDX-License-Identifier: Apache-2.0

import TestSupport
import Foundation
import Testing

extension Integration {
    /// Two real devservers as primary and fallback, the real daemon between them.
    @Suite("Failover and failback between two servers")
    struct FailoverTests {
        /// The daemon's ack_text below: the servers read each acknowledgement's id by it.
        static let ackText = ["--ack-text", "received message {id}"]

        @Test("primary killed mid-burst → the fallback, which sends some of the primary's pushes again (acknowledged, stored once); primary back → failback, make-before-break; every push stored once, none acknowledged before its commit")
        func failoverAndFailback() async throws {
            let directory = try TemporaryDirectory("it")
            let token = makeToken()
            let database = directory.file(DaemonHandle.databaseName)
            let primary = try await DevServerHandle(directory: directory, token: token, verifyDatabase: database, extraArguments: Self.ackText, name: "primary")
            let fallback = try await DevServerHandle(directory: directory, token: token, verifyDatabase: database, extraArguments: Self.ackText, name: "fallback")
            let primaryPort = primary.port
            let daemon = try DaemonHandle(
                directory: directory, serverPort: primaryPort, token: token,
                extra: [
                    "host": "[\"127.0.0.1:\(primaryPort)\", \"127.0.0.1:\(fallback.port)\"]",
                    "failback_interval": "\"1s\"", "ack_text": "\"received message {id}\"",
                ])
            try await primary.waitFor("the daemon on the primary") { $0.connectionsOpen == 1 }
            #expect(try await fallback.stats().connectionsTotal == 0, "the fallback is not used while the primary is up")

            _ = try await primary.client.burst(count: 2000, size: 200, prefix: "p-")
            try await primary.waitFor("part of the burst acknowledged") { $0.acked >= 200 }
            let primaryStats = try await primary.stats()
            primary.process.signal(SIGKILL)
            _ = try await primary.process.waitForExit()
            let killed = ContinuousClock.now
            _ = try await fallback.client.push(#"{"id":"f-first"}"#)
            let reader = DaemonDatabase(path: daemon.databasePath)
            try await eventually("the fallback's push stored") {
                try reader.integer("SELECT count(*) FROM notifications WHERE message_id = 'f-first'") == 1
            }
            let failover = ContinuousClock.now - killed
            print("failover: primary killed → first push from the fallback stored in \(failover)")
            // The fallback sends again pushes the primary delivered: acknowledged there, stored once.
            let resent = try reader.strings("SELECT message_id FROM notifications WHERE message_id LIKE 'p-%' ORDER BY id LIMIT 20").compactMap { $0 }
            #expect(resent.count == 20)
            for id in resent { _ = try await fallback.client.push("{\"id\":\"\(id)\"}") }
            try await fallback.waitFor("the resent pushes acknowledged by the fallback") { $0.acked >= 1 + resent.count }
            for id in resent {
                #expect(try reader.integer("SELECT count(*) FROM notifications WHERE message_id = '\(id)'") == 1, "\(id) stored once")
            }
            try await eventually("the status to say it is on a fallback") { try await statusShowsFallback(daemon) }
            // Messages to the server go on whichever server the daemon reaches, in order.
            for id in ["up-1", "up-2"] {
                let sent = try await runCLI(["send", "{\"id\":\"\(id)\"}", "--database", daemon.databasePath], directory: directory)
                #expect(sent.status == 0, "\(sent.stderr)")
            }
            try await eventually("both messages at the fallback, in order") {
                try await fallback.client.upstream().messages.map(\.id) == ["up-1", "up-2"]
            }

            // A steady stream on the fallback while the primary comes back: the switch must not lose
            // or double any of it.
            try await fallback.client.steady(count: 300, rate: 150, size: 100, prefix: "s-")
            let restarted = try await DevServerHandle(
                directory: directory, token: token, port: primaryPort, verifyDatabase: database, extraArguments: Self.ackText, name: "primary2")
            let back = ContinuousClock.now
            try await restarted.waitFor("the failback to the primary", timeout: .seconds(10)) { $0.connectionsOpen == 1 }
            print("failback: primary back → connected to it in \(ContinuousClock.now - back)")
            let closed = try await fallback.waitFor("the fallback closed with 1000") { $0.connectionsOpen == 0 && ($0.closeCodes["1000"] ?? 0) >= 1 }
            _ = try await restarted.client.push(#"{"id":"after-failback"}"#)
            try await restarted.waitFor("the push after the failback acknowledged") { $0.acked >= 1 }
            let third = try await runCLI(["send", #"{"id":"up-3"}"#, "--database", daemon.databasePath], directory: directory)
            #expect(third.status == 0)
            try await eventually("the message after the failback at the primary") {
                try await restarted.client.upstream().messages.map(\.id) == ["up-3"]
            }

            // Nothing acknowledged before its commit, on any server; every acknowledged push stored once.
            for stats in [try await restarted.stats(), closed] {
                #expect(stats.acksBeforeCommit == 0)
                #expect(stats.ackMismatches == 0)
            }
            #expect(primaryStats.acksBeforeCommit == 0)
            let ids = try reader.strings("SELECT message_id FROM notifications").compactMap { $0 }
            #expect(Set(ids).count == ids.count, "no push stored twice")
            let fallbackStored = ids.filter { $0.hasPrefix("s-") }.count
            #expect(fallbackStored >= closed.acked - 1 - resent.count, "every push the fallback saw acknowledged is stored (\(fallbackStored) of \(closed.acked))")
            let log = daemon.log
            #expect(log.contains("a fallback: the primary ws://127.0.0.1:\(primaryPort)/"))
            #expect(log.contains("the primary server is back") || log.contains("closed the connection to the fallback"))
            // Make-before-break: the primary's connection is up before the fallback's is closed.
            let opened = try #require(log.range(of: "connected to ws://127.0.0.1:\(primaryPort)/", options: .backwards))
            let closedLine = try #require(log.range(of: "closed the connection to the fallback"))
            #expect(opened.lowerBound < closedLine.lowerBound, "\(log)")
        }

        func statusShowsFallback(_ daemon: DaemonHandle) async throws -> Bool {
            let status = try await runCLI(["status", "--json", "--database", daemon.databasePath], directory: try TemporaryDirectory("it"))
            return status.stdout.contains(#""fallback":true"#)
        }
    }
}
