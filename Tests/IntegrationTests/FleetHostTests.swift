// SPDX-License-Identifier: Apache-2.0

import TestSupport
import Foundation
import IntrapushDevServer
import Testing

extension Integration {
    /// Two hosts with one token, as a fleet installed by preseed has (protocol §10): the server
    /// tells them apart by the identity each sends, and each acknowledges its own pushes.
    @Suite("A fleet under one token: each host gets its own pushes")
    struct FleetHostTests {
        /// A daemon of host `hostID` in a directory of its own, with the fleet's one token.
        private func host(_ hostID: String, server: DevServerHandle) throws -> (TemporaryDirectory, DaemonHandle) {
            let directory = try TemporaryDirectory("fleet-\(hostID)")
            let daemon = try DaemonHandle(
                directory: directory, serverPort: server.port, token: server.token, extra: ["host_id": "\"\(hostID)\""],
                name: "intrapushd-\(hostID)")
            return (directory, daemon)
        }

        private func stored(_ daemon: DaemonHandle) throws -> [String] {
            try DaemonDatabase(path: daemon.databasePath).strings("SELECT message_id FROM notifications ORDER BY id").compactMap { $0 }
        }

        private func figures(_ stats: DevServerStats, _ host: String) -> DevServerHostStats? {
            stats.hosts?.first { $0.host == host }
        }

        @Test("an org's push reaches both hosts, each acknowledging its own; a host's push reaches that host alone; a host away gets its pushes when it is back")
        func twoHostsOneToken() async throws {
            let directory = try TemporaryDirectory("fleet")
            let server = try await DevServerHandle(directory: directory, token: makeToken())
            let (aDirectory, a) = try host("desk-a", server: server)
            let (_, b) = try host("desk-b", server: server)
            try await server.waitFor("both hosts to connect") { stats in
                figures(stats, "desk-a")?.connected == true && figures(stats, "desk-b")?.connected == true
            }

            _ = try await server.client.push(#"{"id":"all-1","title":"For everyone"}"#)
            _ = try await server.client.push(#"{"id":"only-b","title":"For desk-b"}"#, host: "desk-b")
            _ = try await server.client.push(#"{"id":"all-2","title":"For everyone"}"#)
            try await server.waitFor("each host to acknowledge its own") { stats in
                figures(stats, "desk-a")?.acked == 2 && figures(stats, "desk-b")?.acked == 3
            }
            // A push misdelivered to desk-a would have been stored before all-2, which it stored.
            #expect(try stored(a) == ["all-1", "all-2"])
            #expect(try stored(b) == ["all-1", "only-b", "all-2"])

            // desk-a goes away; what comes meanwhile waits for it, and desk-b is not held up.
            a.process.signal(SIGTERM)
            #expect(try await a.process.waitForExit() == 0)
            try await server.waitFor("desk-a to be gone") { figures($0, "desk-a")?.connected == false }
            _ = try await server.client.push(#"{"id":"all-3","title":"While desk-a is away"}"#)
            try await server.waitFor("desk-b to acknowledge all-3") { figures($0, "desk-b")?.acked == 4 }
            #expect(figures(try await server.stats(), "desk-a")?.queued == 1)

            let back = try DaemonHandle(restarting: a, directory: aDirectory, name: "intrapushd-desk-a-again")
            try await server.waitFor("desk-a to get all-3 once back") { figures($0, "desk-a")?.acked == 3 }
            #expect(try stored(back) == ["all-1", "all-2", "all-3"])
            #expect(try stored(b) == ["all-1", "only-b", "all-2", "all-3"])
            let stats = try await server.stats()
            #expect(stats.unacked == 0 && stats.ackMismatches == 0)
            #expect(stats.deliveries == 7, "every copy sent once: nothing was sent again")
        }

        @Test("a host that connects for the first time later gets the org's pushes it missed")
        func lateHost() async throws {
            let directory = try TemporaryDirectory("fleet")
            let server = try await DevServerHandle(directory: directory, token: makeToken())
            let (_, a) = try host("desk-a", server: server)
            try await server.waitFor("desk-a to connect") { figures($0, "desk-a")?.connected == true }
            _ = try await server.client.push(#"{"id":"before-c","title":"Sent before desk-c was installed"}"#)
            try await server.waitFor("desk-a to acknowledge") { figures($0, "desk-a")?.acked == 1 }

            let (_, c) = try host("desk-c", server: server)
            try await server.waitFor("desk-c to acknowledge what it missed") { figures($0, "desk-c")?.acked == 1 }
            #expect(try stored(c) == ["before-c"])
            #expect(try stored(a) == ["before-c"])
        }

        @Test("two machines with one identity: the server closes the older connection with 4409, and the daemon says why")
        func oneIdentityTwice() async throws {
            let directory = try TemporaryDirectory("fleet")
            let server = try await DevServerHandle(directory: directory, token: makeToken())
            let (_, first) = try host("cloned", server: server)
            try await server.waitFor("the first to connect") { figures($0, "cloned")?.connected == true }
            let (_, second) = try host("cloned", server: server)
            try await server.waitFor("the second to replace the first") { (figures($0, "cloned")?.replaced ?? 0) >= 1 }
            try await eventually("a daemon to log why its connection was closed") {
                (first.log + second.log).contains("another connection with this host's identity opened")
            }
            #expect((first.log + second.log).contains("systemd-machine-id-setup"))
        }
    }
}
