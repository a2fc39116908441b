// SPDX-License-Identifier: Apache-2.0

import TestSupport
import Foundation
import Testing

extension Integration {
    /// Each form of the server's hint, sent by the reference server, against the real daemon:
    /// the next attempt waits at least the hint (1 s; without it the tests' reconnect_min of
    /// 100 ms would come back at once), and the status line says so.
    @Suite("Retry hints: Retry-After on 503/429, retry-after=N on 1012/1013")
    struct RetryHintTests {
        @Test(
            "an upgrade answered 503 or 429 with Retry-After (seconds or an HTTP date) delays the next attempt",
            arguments: ["status=503&retry_after=1", "status=429&retry_after_date=2"])
        func refusedUpgrade(query: String) async throws {
            let (_, _, server, notify, daemon) = try await startConnectedNotifying()
            _ = try await server.client.control("reject?\(query)")
            _ = try await server.client.control("close?code=1001")
            let first = try await server.waitFor("the first refused attempt") { $0.upgradesRejected >= 1 }
            let refusedAt = ContinuousClock.now
            try await notify.waitFor({ $0.hasPrefix("STATUS=") && $0.contains("server asked to wait") }, "the status line")
            try await server.waitFor("the next attempt", timeout: .seconds(10)) { $0.upgradesRejected > first.upgradesRejected }
            let waited = ContinuousClock.now - refusedAt
            // An HTTP date has whole seconds: "2 s ahead" may be 1.x s by the time it is read.
            #expect(waited >= .milliseconds(900), "the next attempt came after \(waited)")
            _ = daemon
        }

        @Test("a close with 1013 and retry-after=1 in its reason delays the reconnect", arguments: [1013, 1012])
        func closeWithHint(code: Int) async throws {
            let (_, _, server, notify, daemon) = try await startConnectedNotifying()
            let closedAt = ContinuousClock.now
            _ = try await server.client.control("close?code=\(code)&reason=retry-after%3D1")
            try await notify.waitFor({ $0.contains("server asked to wait 1s (close \(code))") }, "the status line")
            try await server.waitFor("the reconnect", timeout: .seconds(10)) { $0.connectionsTotal >= 2 }
            let waited = ContinuousClock.now - closedAt
            #expect(waited >= .seconds(1), "reconnected after \(waited)")
            _ = daemon
        }

        @Test("a server stopped with --shutdown-retry-after closes with 1012 and the fleet waits")
        func shutdownHint() async throws {
            let directory = try TemporaryDirectory("it")
            let notify = try NotifySocket(directory: directory)
            let token = makeToken()
            let server = try await DevServerHandle(directory: directory, token: token, extraArguments: ["--shutdown-retry-after", "1"])
            let daemon = try DaemonHandle(
                directory: directory, serverPort: server.port, token: token, environment: ["NOTIFY_SOCKET": notify.path])
            try await server.waitFor("the daemon to connect") { $0.connectionsOpen == 1 }
            let stoppedAt = ContinuousClock.now
            try await server.stop()
            let back = try await DevServerHandle(directory: directory, token: token, port: server.port, name: "devserver2")
            try await notify.waitFor({ $0.contains("server asked to wait 1s (close 1012)") }, "the status line")
            try await back.waitFor("the reconnect", timeout: .seconds(10)) { $0.connectionsTotal >= 1 }
            let waited = ContinuousClock.now - stoppedAt
            #expect(waited >= .seconds(1), "reconnected after \(waited)")
            _ = daemon
        }
    }
}
