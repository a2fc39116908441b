// SPDX-License-Identifier: Apache-2.0

import TestSupport
import Foundation
import Testing

extension Integration {
    @Suite("Network awareness: the server and the daemon in two network namespaces")
    struct NetworkAwarenessTests {
        /// The daemon's side of a veth link goes down and up. While it is down (or up without an
        /// address) the daemon has no route and must not dial: its log shows no attempt, STATUS=
        /// and `intrapush status` say it waits for the network. Once its address is configured
        /// it connects within 1 s, although its backoff (reconnect_min = 30 s) would have it wait
        /// 15 s or more. The address comes after both ends of the link reported their carrier, as
        /// DHCP would: a SYN sent before the peer's end is ready is lost, and only resent after a
        /// second, which is the kernel's doing, not the daemon's. The heartbeat is 10 s (dead peer
        /// 30 s), so only the verifying ping can notice the lost link quickly.
        @Test("link down: no dialling, waiting for network; link up: connected within 1 s whatever the backoff",
              .enabled(if: NamespacePair.unavailableReason == nil,
                       "cannot create network namespaces here (\(NamespacePair.unavailableReason ?? "")): needs root and ip(8) from iproute2"))
        func linkDownAndUp() async throws {
            let pair = try NamespacePair()
            defer { pair.delete() }
            let linkWatch = try [LinkUpWatch(namespace: pair.client), LinkUpWatch(namespace: pair.server)]
            let directory = try TemporaryDirectory("it")
            let token = makeToken()
            let server = try ManagedProcess(
                NamespacePair.ipPath,
                pair.execArguments(in: pair.server, Binaries.path("intrapush-devserver"), [
                    "serve", "--listen", "\(NamespacePair.serverAddress):0", "--token", token,
                ]),
                directory: directory, name: "devserver")
            var port = 0
            try await eventually(timeout: .seconds(10), "the devserver to listen") {
                port = server.stdout.split(separator: "\n").first.flatMap { line in
                    line.hasPrefix("listening on ") ? line.split(separator: ":").last.flatMap { Int($0) } : nil
                } ?? 0
                return port != 0
            }

            // Start with the link down: no route to the server at all.
            let notify = try NotifySocket(directory: directory)
            let databasePath = directory.file(DaemonHandle.databaseName)
            let configPath = try directory.write("intrapushd.conf", DaemonHandle.config(
                serverPort: port, token: token, database: databasePath,
                extra: [
                    // The namespace's server is off this machine as far as the address says: ws written.
                    "host": "\"\(NamespacePair.serverAddress):\(port)\"", "tls": "false", "heartbeat_interval": "\"10s\"",
                    "reconnect_min": "\"30s\"", "reconnect_max": "\"60s\"",
                ]))
            let daemon = try ManagedProcess(
                NamespacePair.ipPath,
                pair.execArguments(in: pair.client, Binaries.path("intrapushd"), ["--config", configPath]),
                environment: ["NOTIFY_SOCKET": notify.path], directory: directory, name: "intrapushd")
            let reader = DaemonDatabase(path: databasePath)
            try await notify.waitFor({ $0.hasPrefix("STATUS=waiting for network") }, "STATUS=waiting for network")
            try await eventually("the live state to say waiting for network") {
                try reader.liveState()?.state == .waitingForNetwork
            }
            // Nothing to await: no attempt may happen, so give one the time to show.
            try await Task.sleep(for: .seconds(1))
            #expect(!daemon.stderr.contains("connecting to"), "no dial without a route")
            #expect(!daemon.stderr.contains("cannot connect"))
            #expect(try pair.stats(port: port).connectionsTotal == 0)
            let status = try await runCLI(["status", "--database", databasePath], directory: directory)
            #expect(status.stdout.hasPrefix("intrapushd (pid \(daemon.pid)) is running, waiting for network"), "\(status.stdout)")

            try await bringLinkUp(pair: pair, linkWatch: linkWatch, daemon: daemon, connections: 1, port: port, reader: reader)

            // Link down while connected: the ping gets no answer within 5 s, the connection is
            // dropped and, one failure counted, the daemon waits for the network without dialling.
            try pair.setClientLink(up: false)
            try await eventually(timeout: .seconds(15), "the daemon to wait for the network after losing its link") {
                try reader.liveState()?.state == .waitingForNetwork
            }
            #expect(daemon.stderr.contains("the network changed; checking the connection with a ping"))
            #expect(daemon.stderr.contains("no answer to the ping within 5s"))
            #expect(try reader.liveState()?.reconnectAttempt == 1)
            let dials = daemon.stderr.components(separatedBy: "connecting to").count
            try await Task.sleep(for: .seconds(1))
            #expect(daemon.stderr.components(separatedBy: "connecting to").count == dials, "no dial without a route")

            // Up again: attempt 1's backoff would be 15–30 s.
            try await bringLinkUp(pair: pair, linkWatch: linkWatch, daemon: daemon, connections: 2, port: port, reader: reader)
            #expect(daemon.stderr.contains("network changed ("), "\(daemon.stderr)")

            daemon.signal(SIGTERM)
            #expect(try await daemon.waitForExit() == 0)
            server.signal(SIGTERM)
            _ = try await server.waitForExit()
        }

        /// Sets the daemon's link up (no dial yet: no address, no route), then configures its
        /// address and checks that the devserver saw connection number `connections` open less
        /// than a second later (its connection times are on CLOCK_MONOTONIC too).
        private func bringLinkUp(
            pair: NamespacePair, linkWatch: [LinkUpWatch], daemon: ManagedProcess, connections: Int,
            port: Int, reader: DaemonDatabase
        ) async throws {
            let dials = daemon.stderr.components(separatedBy: "connecting to").count
            let linkCommand = monotonicMicroseconds()
            try pair.setClientLink(up: true)
            try await eventually(timeout: .seconds(5), "the kernel to report both ends of the link up") {
                linkWatch.allSatisfy { $0.linkUp(since: linkCommand) != nil }
            }
            #expect(try reader.liveState()?.state == .waitingForNetwork, "a link without an address is no route")
            #expect(daemon.stderr.components(separatedBy: "connecting to").count == dials)

            let before = monotonicMicroseconds()
            try pair.addClientAddress()
            try await eventually(timeout: .seconds(10), "the daemon to connect") {
                try reader.liveState()?.state == .connected
            }
            let stats = try pair.stats(port: port)
            #expect(stats.connectionsTotal == connections)
            let opened = stats.startedMonotonicMicroseconds + (stats.connectionTimesMicroseconds.last ?? 0)
            #expect(opened - before < 1_000_000, "connection \(connections) opened \(opened - before) µs after the address was configured")
        }
    }
}
