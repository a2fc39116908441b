// SPDX-License-Identifier: Apache-2.0

import TestSupport
import Foundation
import Testing

extension Integration {
    @Suite("Lifecycle: systemd, signals, crashes")
    struct LifecycleTests {
        @Test("SIGTERM closes with 1000 and exits 0, telling systemd STOPPING=1")
        func sigtermClosesWith1000() async throws {
            let (_, _, server, notify, daemon) = try await startConnectedNotifying()
            daemon.process.signal(SIGTERM)
            #expect(try await daemon.process.waitForExit(timeout: .seconds(5)) == 0)
            let stats = try await server.waitFor("the close to be recorded") { $0.connectionsOpen == 0 }
            #expect(stats.closeCodes == ["1000": 1], "one close, with 1000, and no reconnect after it")
            #expect(stats.connectionsTotal == 1)
            #expect(notify.assignments.contains("STOPPING=1"))
            #expect(try DaemonDatabase(path: daemon.databasePath).liveState()?.state == .stopped)
            // Nothing after "stopped": no work scheduled on a loop already shut down, no trace.
            #expect(daemon.log.hasSuffix("stopped\n"), "the log ends: \(daemon.log.suffix(300))")
            #expect(!FileManager.default.fileExists(atPath: daemon.databasePath + ".sock"), "the local API's socket removed")
        }

        /// systemd may stop or reload a unit the moment it reports READY=1, so every signal we
        /// answer must be trapped by then (a SIGTERM that met the default action killed us).
        @Test("SIGTERM or SIGHUP at the moment of READY=1 is handled, never fatal")
        func signalsRightAfterReady() async throws {
            let directory = try TemporaryDirectory("it")
            let token = makeToken()
            let server = try await DevServerHandle(directory: directory, token: token)
            for (round, signal) in [SIGTERM, SIGHUP, SIGTERM, SIGHUP, SIGTERM].enumerated() {
                let notify = try NotifySocket(directory: directory, name: "notify\(round).sock")
                let daemon = try DaemonHandle(
                    directory: directory, serverPort: server.port, token: token,
                    environment: ["NOTIFY_SOCKET": notify.path], name: "intrapushd\(round)")
                try await notify.waitFor({ $0 == "READY=1" }, "READY=1")
                daemon.process.signal(signal)
                if signal == SIGHUP {
                    try await notify.waitFor({ $0 == "RELOADING=1" }, "RELOADING=1 after an early SIGHUP")
                    daemon.process.signal(SIGTERM)
                }
                #expect(try await daemon.process.waitForExit(timeout: .seconds(5)) == 0, "round \(round)")
            }
        }

        @Test("SIGINT is a graceful stop too")
        func sigintStops() async throws {
            let (_, _, server, daemon) = try await startConnected()
            daemon.process.signal(SIGINT)
            #expect(try await daemon.process.waitForExit(timeout: .seconds(5)) == 0)
            try await server.waitFor("close 1000") { $0.closeCodes["1000"] == 1 }
        }

        @Test("sd_notify: READY=1 without waiting for the server, STATUS= on changes, WATCHDOG=1 while healthy")
        func notifyMessages() async throws {
            let directory = try TemporaryDirectory("it")
            let token = makeToken()
            let notify = try NotifySocket(directory: directory)
            // No server yet: READY=1 must not wait for one.
            let server = try await DevServerHandle(directory: directory, token: token)
            let port = server.port
            try await server.stop()
            let daemon = try DaemonHandle(
                directory: directory, serverPort: port, token: token,
                environment: ["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "300000"]
            )
            try await notify.waitFor({ $0 == "READY=1" }, "READY=1")
            try await notify.waitFor({ $0.hasPrefix("STATUS=reconnecting in") && $0.contains("connection refused") }, "a reconnecting status")
            // The watchdog is fed although the server is down: an outage must not get us restarted.
            try await eventually("three watchdog pings") { notify.assignments.filter { $0 == "WATCHDOG=1" }.count >= 3 }

            let back = try await DevServerHandle(directory: directory, token: token, port: port, name: "devserver2")
            try await back.waitFor("the daemon to connect") { $0.connectionsOpen == 1 }
            try await notify.waitFor({ $0 == "STATUS=connected to 127.0.0.1:\(port) (org acme) · 0 received" }, "the connected status")
            #expect(!notify.assignments.contains { $0.contains(token) })
            _ = daemon
        }

        @Test("STATUS= shows a burst's last count within a second, with no heartbeat due to renew it")
        func statusCountAfterBurst() async throws {
            let (_, _, server, notify, daemon) = try await startConnectedNotifying(extra: ["heartbeat_interval": "\"60s\""])
            let started = ContinuousClock.now
            for index in 1...5 { _ = try await server.client.push("{\"id\":\"burst-\(index)\"}") }
            let status = try await notify.waitFor({ $0.hasSuffix("· 5 received") }, "the burst's count in STATUS=")
            let seconds = Int((ContinuousClock.now - started).components.seconds) + 1
            let counts = notify.assignments.filter { $0.hasPrefix("STATUS=connected") }
            // The connected line, then at most one a second (a loaded machine may stretch the burst).
            #expect(counts.count <= 1 + seconds, "more than one line a second: \(counts)")
            _ = (status, daemon)
        }

        @Test("a host that does not resolve is said in words, without the resolver's type names")
        func unresolvableHostStatus() async throws {
            let directory = try TemporaryDirectory("it")
            let notify = try NotifySocket(directory: directory)
            // .invalid never resolves (RFC 6761); without DNS the lookup fails just as well.
            let daemon = try DaemonHandle(
                directory: directory, serverPort: 9, token: makeToken(),
                environment: ["NOTIFY_SOCKET": notify.path, "INTRAPUSH_HOST": "push.nowhere.invalid:8080"]
            )
            let status = try await notify.waitFor(
                { $0.hasPrefix("STATUS=reconnecting in") && $0.contains("cannot resolve") }, "a reconnecting status")
            #expect(status.contains("cannot resolve push.nowhere.invalid"), "\(status)")
            #expect(status.hasSuffix("; check host and the DNS settings"), "\(status)")
            #expect(!status.contains("Error") && !status.contains("port 8080"), "no type names, the host once: \(status)")
            _ = daemon
        }

        @Test("WATCHDOG_PID naming another process turns the watchdog off")
        func watchdogForAnotherProcess() async throws {
            let (_, _, server, notify, daemon) = try await startConnectedNotifying(
                environment: ["WATCHDOG_USEC": "100000", "WATCHDOG_PID": "1"])
            // Long enough for several 50 ms watchdog periods.
            try await server.waitFor("three heartbeats") { $0.heartbeats >= 3 }
            #expect(!notify.assignments.contains("WATCHDOG=1"))
            _ = daemon
        }

        @Test("SIGHUP reloads: RELOADING=1 with MONOTONIC_USEC, READY=1; reconnects only when connection settings changed")
        func reload() async throws {
            let (_, token, server, notify, daemon) = try await startConnectedNotifying()
            try await notify.waitFor({ $0 == "READY=1" }, "READY=1")
            let readyBefore = notify.assignments.filter { $0 == "READY=1" }.count

            daemon.process.signal(SIGHUP)
            try await notify.waitFor({ $0 == "RELOADING=1" }, "RELOADING=1")
            try await eventually("READY=1 after the reload") { notify.assignments.filter { $0 == "READY=1" }.count > readyBefore }
            let monotonic = notify.assignments.first { $0.hasPrefix("MONOTONIC_USEC=") }
            #expect(monotonic.flatMap { UInt64($0.dropFirst("MONOTONIC_USEC=".count)) } != nil)
            #expect(try await server.stats().connectionsTotal == 1, "unchanged settings keep the connection")

            // A changed heartbeat text is a connection setting: the daemon reconnects with it.
            let changed = DaemonHandle.config(
                serverPort: server.port, token: token, database: daemon.databasePath,
                extra: ["heartbeat_text": "\"PING-KA\"", "log_level": "\"info\""]
            )
            try changed.write(toFile: daemon.configPath, atomically: true, encoding: .utf8)
            daemon.process.signal(SIGHUP)
            try await server.waitFor("a reconnect with the new settings") { $0.connectionsTotal == 2 && $0.connectionsOpen == 1 }
            #expect(daemon.process.isRunning)
        }

        @Test("a reload with a broken configuration keeps the daemon running on the old one")
        func reloadWithBrokenConfiguration() async throws {
            let (_, _, server, daemon) = try await startConnected()
            try "heartbeat_interval = \"soon\"\n".write(toFile: daemon.configPath, atomically: true, encoding: .utf8)
            daemon.process.signal(SIGHUP)
            try await eventually("the reload failure to be logged") { daemon.log.contains("reload failed") }
            #expect(daemon.log.contains("heartbeat_interval"))
            #expect(daemon.process.isRunning)
            #expect(try await server.stats().connectionsOpen == 1)
        }

        @Test("SIGKILL during a burst loses nothing: after a restart every push is stored exactly once")
        func killDuringBurst() async throws {
            let (directory, _, server, daemon) = try await startConnected(verifyingDatabase: true)
            let database = daemon.databasePath
            // Long enough that the kill lands mid-burst however late the first poll comes: a
            // daemon that takes a burst faster once acknowledged all of 20,000 before it.
            let count = 100_000
            _ = try await server.client.burst(count: count, size: 300, prefix: "kill-")
            let before = try await server.waitFor("some pushes acknowledged", interval: .milliseconds(2)) { $0.acked >= 200 }
            daemon.process.signal(SIGKILL)
            #expect(try await daemon.process.waitForExit() == 128 + SIGKILL)
            #expect(before.acked < count, "the kill must land mid-burst")

            let restarted = try DaemonHandle(restarting: daemon, directory: directory, name: "intrapushd2")
            let stats = try await server.waitFor("all pushes acknowledged", timeout: .seconds(60)) { $0.acked == count }
            #expect(stats.acksBeforeCommit == 0)
            let reader = DaemonDatabase(path: database)
            #expect(try reader.integer("SELECT count(*) FROM notifications") == Int64(count))
            #expect(try reader.integer("SELECT count(DISTINCT message_id) FROM notifications") == Int64(count))
            _ = restarted
        }
    }
}
