// SPDX-License-Identifier: Apache-2.0

import TestSupport
import Foundation
import Testing

extension Integration {
    @Suite("Reconnecting: server close, outage, rejected token, dead peer, oversized frame")
    struct ReconnectTests {
        @Test("the server closing the connection is followed by a reconnect and redelivery")
        func serverCloses() async throws {
            let (_, _, server, daemon) = try await startConnected()
            _ = try await server.client.control("/control/close?code=1001")
            try await server.waitFor("a second connection") { $0.connectionsTotal == 2 && $0.connectionsOpen == 1 }
            _ = try await server.client.push(#"{"id":"after-close"}"#)
            try await server.waitFor("the push to be acknowledged") { $0.acked == 1 }
            #expect(try DaemonDatabase(path: daemon.databasePath).integer("SELECT count(*) FROM notifications") == 1)
            #expect(daemon.log.contains("closed by the server (code 1001)"))
        }

        @Test("the server vanishing for a while: the daemon keeps retrying and comes back")
        func serverVanishes() async throws {
            let directory = try TemporaryDirectory("it")
            let token = makeToken()
            let first = try await DevServerHandle(directory: directory, token: token)
            let port = first.port
            let daemon = try DaemonHandle(directory: directory, serverPort: port, token: token)
            try await first.waitFor("the daemon to connect") { $0.connectionsOpen == 1 }
            first.process.signal(SIGKILL)
            _ = try await first.process.waitForExit()
            let reader = DaemonDatabase(path: daemon.databasePath)
            // Refused while the server is away: attempts climb, the status says so. During each
            // attempt's dial it says connecting, so both are read from one row, between attempts.
            try await eventually("two failed attempts, the status saying reconnecting") {
                let live = try reader.liveState()
                return (live?.reconnectAttempt ?? 0) >= 2 && live?.state == .reconnecting
            }
            #expect(daemon.log.contains("connection refused"))
            #expect(daemon.process.isRunning)

            let second = try await DevServerHandle(directory: directory, token: token, port: port, name: "devserver2")
            try await second.waitFor("the daemon to reconnect") { $0.connectionsOpen == 1 }
            _ = try await second.client.push(#"{"id":"back"}"#)
            try await second.waitFor("the push after the outage to be acknowledged") { $0.acked == 1 }
            try await eventually("the live state to show connected") { try reader.liveState()?.state == .connected }
        }

        @Test("HTTP 401 is a rejected token: logged, shown, retried no faster than reconnect_max")
        func rejectedToken() async throws {
            let directory = try TemporaryDirectory("it")
            let token = makeToken()
            let server = try await DevServerHandle(directory: directory, token: token)
            let notify = try NotifySocket(directory: directory)
            let daemon = try DaemonHandle(
                directory: directory, serverPort: server.port, token: "wrong-token",
                extra: ["reconnect_min": "\"50ms\"", "reconnect_max": "\"700ms\""],
                environment: ["NOTIFY_SOCKET": notify.path]
            )
            try await server.waitFor("a rejected upgrade") { $0.upgradesRejected >= 1 }
            let started = ContinuousClock.now
            try await notify.waitFor({ $0.hasPrefix("STATUS=token rejected by the server (HTTP 401)") }, "the rejected-token status")
            try await server.waitFor("three more rejections") { $0.upgradesRejected >= 4 }
            let elapsed = ContinuousClock.now - started
            // Three retries at the 700 ms pace cannot take less than 2.1 s; with backoff from 50 ms they would.
            #expect(elapsed >= .milliseconds(2000), "three retries took \(elapsed)")
            #expect(daemon.log.contains("<3>token rejected by the server (HTTP 401)"))
            // The live state reaches the database through the writer, just after the status line.
            try await eventually("the rejected state in the database") {
                try DaemonDatabase(path: daemon.databasePath).liveState()?.state == .rejected
            }

            _ = try await server.client.control("/control/reject?status=403")
            try await notify.waitFor({ $0.contains("HTTP 403") }, "a 403 shown as a rejected token too")
            #expect(!daemon.log.contains(token) && !daemon.log.contains("wrong-token"))
        }

        @Test("a silent server is a dead peer: dropped after dead_peer_timeout, then reconnected")
        func deadPeer() async throws {
            let directory = try TemporaryDirectory("it")
            let token = makeToken()
            let server = try await DevServerHandle(directory: directory, token: token)
            let daemon = try DaemonHandle(
                directory: directory, serverPort: server.port, token: token,
                extra: ["heartbeat_interval": "\"200ms\"", "dead_peer_timeout": "\"600ms\""]
            )
            try await server.waitFor("the daemon to connect") { $0.connectionsOpen == 1 }
            _ = try await server.client.control("/control/silence?on=1")
            try await eventually("the daemon to declare the peer dead") { daemon.log.contains("dead peer") }
            _ = try await server.client.control("/control/silence?on=0")
            try await server.waitFor("a new connection") { $0.connectionsTotal >= 2 && $0.connectionsOpen == 1 }
            _ = try await server.client.push(#"{"id":"alive-again"}"#)
            try await server.waitFor("the push to be acknowledged") { $0.acked == 1 }
        }

        @Test("a frame over max_message_size closes with 1009; the daemon reconnects and goes on")
        func oversizedFrame() async throws {
            let (_, _, server, daemon) = try await startConnected(extra: ["max_message_size": "2048"])
            _ = try await server.client.push(#"{"id":"huge","body":"\#(String(repeating: "x", count: 5000))"}"#)
            try await server.waitFor("a 1009 close") { $0.closeCodes["1009"] == 1 }
            try await server.waitFor("the daemon to reconnect") { $0.connectionsTotal >= 2 && $0.connectionsOpen == 1 }
            _ = try await server.client.push(#"{"id":"small"}"#)
            try await server.waitFor("the next push to be acknowledged") { $0.acked == 1 }
            let reader = DaemonDatabase(path: daemon.databasePath)
            #expect(try reader.strings("SELECT message_id FROM notifications") == ["small"])
            #expect(daemon.process.isRunning)
            #expect(daemon.log.contains("message larger than max_message_size (closed with 1009)"))
        }

        @Test("a server that accepts TCP but never answers the upgrade times out after connect_timeout")
        func upgradeTimesOut() async throws {
            let directory = try TemporaryDirectory("it")
            let listener = try SilentListener()
            let daemon = try DaemonHandle(
                directory: directory, serverPort: listener.port, token: makeToken(),
                extra: ["connect_timeout": "\"300ms\""]
            )
            let reader = DaemonDatabase(path: daemon.databasePath)
            // The database appears once the daemon has started: until then, no attempt to count.
            try await eventually("two timed-out attempts") { ((try? reader.liveState())??.reconnectAttempt ?? 0) >= 2 }
            #expect(try reader.liveState()?.lastError == "connection timed out")
            #expect(daemon.process.isRunning)
        }

        @Test("the server's heartbeat echo proves it alive and is neither stored nor acknowledged")
        func heartbeatEcho() async throws {
            let directory = try TemporaryDirectory("it")
            let token = makeToken()
            let server = try await DevServerHandle(directory: directory, token: token, extraArguments: ["--echo-heartbeats"])
            let daemon = try DaemonHandle(directory: directory, serverPort: server.port, token: token)
            // That --echo-heartbeats really echoes is proved by DevServerEndToEndTests.
            let stats = try await server.waitFor("five heartbeats") { $0.heartbeats >= 5 }
            #expect(stats.acks == 0 && stats.ackMismatches == 0, "an echo is not a push: no acknowledgement")
            #expect(try DaemonDatabase(path: daemon.databasePath).integer("SELECT count(*) FROM notifications") == 0)
        }
    }
}
