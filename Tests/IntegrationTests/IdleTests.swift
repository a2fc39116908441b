// SPDX-License-Identifier: Apache-2.0

import TestSupport
import Foundation
import Testing

extension Integration {
    @Suite("Idle: nothing written without a reason, status from the daemon")
    struct IdleTests {
        /// The WAL's size and modification time: any commit appends frames to it.
        static func walMark(_ daemon: DaemonHandle) throws -> String {
            let attributes = try FileManager.default.attributesOfItem(atPath: daemon.databasePath + "-wal")
            return "\(attributes[.size] ?? 0) \((attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)"
        }

        @Test("heartbeats write nothing to the database; status shows them, from the daemon")
        func heartbeatsWriteNothing() async throws {
            let (directory, _, server, daemon) = try await startConnected()
            // Past the start's own writes (the connection, the first prune).
            let start = try await server.stats().heartbeats
            try await server.waitFor("two heartbeats") { $0.heartbeats >= start + 2 }
            let before = try Self.walMark(daemon)
            let heartbeats = try await server.stats().heartbeats
            try await server.waitFor("five more heartbeats (200 ms apart)") { $0.heartbeats >= heartbeats + 5 }
            #expect(try Self.walMark(daemon) == before, "no commit while idle")

            let status = try await runCLI(["status", "--config", daemon.configPath], directory: directory)
            #expect(status.stdout.contains("Last heartbeat:  ") && status.stdout.contains("(just now)"), "\(status.stdout)")
        }

        /// libdispatch's first worker thread arms its pool monitor, which then wakes the process
        /// every second for good; so no part of the daemon may start one: not the tasks, the
        /// timers, the signals, the resolver or a reload.
        @Test("connected, pushed, reloaded and idle: no libdispatch thread ever started")
        func noDispatchThreads() async throws {
            let (_, _, server, daemon) = try await startConnected()
            _ = try await server.client.push(#"{"id":"d-1"}"#)
            try await server.waitFor("the acknowledgement") { $0.acked == 1 }
            daemon.process.signal(SIGHUP)
            try await eventually("the reload") { daemon.log.contains("configuration reloaded") }
            let heartbeats = try await server.stats().heartbeats
            try await server.waitFor("three more heartbeats") { $0.heartbeats >= heartbeats + 3 }
            let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(daemon.process.pid)/task")
            let names = tasks.map { (try? String(contentsOfFile: "/proc/\(daemon.process.pid)/task/\($0)/comm", encoding: .utf8)) ?? "" }
            #expect(!names.contains { $0.contains("qos") || $0.contains("Dispatch") || $0.contains("com.apple") }, "\(names)")
        }

        /// The socket takes the question (the kernel accepts for a stopped process); the answer
        /// does not come, and the CLI says so after its 2 s instead of waiting for ever.
        @Test("a stopped daemon: status says it does not answer")
        func stoppedDaemonDoesNotAnswer() async throws {
            let (directory, _, _, daemon) = try await startConnected()
            daemon.process.signal(SIGSTOP)
            defer { daemon.process.signal(SIGCONT) }
            let status = try await runCLI(["status", "--config", daemon.configPath], directory: directory)
            #expect(status.stdout.hasPrefix("intrapushd (pid \(daemon.process.pid)) does not answer: it may be stopped or hung"),
                    "\(status.stdout)")
        }

        @Test("status counts agree with the server at once, not one heartbeat later")
        func countsAgreeWithTheServer() async throws {
            let (directory, _, server, daemon) = try await startConnected(extra: ["heartbeat_interval": "\"1h\""])
            for n in 1...3 { _ = try await server.client.push("{\"id\":\"agree-\(n)\"}") }
            try await server.waitFor("three acknowledgements") { $0.acked == 3 }
            let status = try await runCLI(["status", "--json", "--config", daemon.configPath], directory: directory)
            let json = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any] ?? [:]
            #expect(json["received_total"] as? Int == 3 && json["acked_total"] as? Int == 3, "\(status.stdout)")
        }
    }
}
