// SPDX-License-Identifier: Apache-2.0

import TestSupport
import Foundation
import IntrapushInterface
import IntrapushStore
import NIOConcurrencyHelpers
import Testing

extension Integration {
    @Suite("Restarts: the local API's callers ride through")
    struct RestartTests {
        /// What the socket systemd holds promises a caller: a daemon that stops answers the
        /// calls it has begun from the data and closes the others unanswered; the client asks
        /// those again, and the next daemon answers. No caller is told an error.
        @Test("three restarts under four callers' stream of calls, on a held socket: every call answered")
        func restartsLoseNoCaller() async throws {
            let directory = try TemporaryDirectory("it")
            let token = makeToken()
            let server = try await DevServerHandle(directory: directory, token: token)
            let database = directory.file(DaemonHandle.databaseName)
            // Enough rows that a search is a scan under way when the stop comes.
            try Self.fill(database, rows: 30_000)
            let configPath = try directory.write(
                "intrapushd.conf", DaemonHandle.config(serverPort: server.port, token: token, database: database))
            let socket = try HeldSocket(path: database + ".sock")
            var daemon = try socket.startDaemon(configPath: configPath, directory: directory, name: "intrapushd-1")
            try await server.waitFor("the first daemon to connect") { $0.connectionsOpen == 1 }

            let riders = Riders(socketPath: socket.path, count: 4)
            try await eventually("calls answered") { riders.outcome.calls >= 20 }
            for next in 2...4 {
                daemon.signal(SIGTERM)
                let status = try await daemon.waitForExit()
                #expect(status == 0, "\(daemon.log)")
                let before = riders.outcome.calls
                daemon = try socket.startDaemon(configPath: configPath, directory: directory, name: "intrapushd-\(next)")
                try await eventually("calls answered by daemon \(next)") { riders.outcome.calls >= before + 20 }
            }
            let outcome = try await riders.stop()
            #expect(outcome.failures.isEmpty, "\(outcome.failures.count) of \(outcome.calls) calls failed: \(outcome.failures.prefix(3))")
        }

        static func fill(_ path: String, rows: Int) throws {
            let store = try NotificationStore(path: path)
            let pushes = (1...rows).map { index in
                Push(
                    payload: .text(#"{"id":"r-\#(index)"}"#), messageID: "r-\(index)", title: "Row \(index)",
                    body: String(repeating: "filler text of row \(index) ", count: 8), receivedAt: 1_700_000_000_000 + Int64(index))
            }
            _ = try store.store(pushes, liveState: nil)
        }
    }
}

/// Callers of the local API, each on a thread of its own calling over and over as the CLI does
/// (a new connection per call, through the same typed client), until stopped.
private final class Riders: @unchecked Sendable {
    struct Outcome {
        var calls = 0
        var failures: [String] = []
    }

    private let state = NIOLockedValueBox((outcome: Outcome(), isStopping: false, finished: 0))
    private let count: Int

    init(socketPath: String, count: Int) {
        self.count = count
        for rider in 0..<count {
            Thread { [self] in
                var turn = rider
                while !state.withLockedValue({ $0.isStopping }) {
                    let failure = Self.call(socketPath, turn: turn)
                    turn += 1
                    state.withLockedValue {
                        $0.outcome.calls += 1
                        if let failure { $0.outcome.failures.append(failure) }
                    }
                }
                state.withLockedValue { $0.finished += 1 }
            }.start()
        }
    }

    var outcome: Outcome { state.withLockedValue { $0.outcome } }

    func stop() async throws -> Outcome {
        state.withLockedValue { $0.isStopping = true }
        try await eventually("the callers to finish their last call") { self.state.withLockedValue { $0.finished } == self.count }
        return outcome
    }

    /// A search (a scan), a count or a page, in turn; the error's words when it failed.
    private static func call(_ socketPath: String, turn: Int) -> String? {
        do {
            let client = try LocalAPIClient(path: socketPath)
            switch turn % 3 {
            case 0: _ = try client.call(NotificationsInterface.Count.self, .init(filter: .init(grep: "no such words")))
            case 1: _ = try client.call(NotificationsInterface.Count.self, .init())
            default: _ = try client.call(NotificationsInterface.List.self, .init(limit: 20))
            }
            return nil
        } catch {
            return "\(error)"
        }
    }
}
