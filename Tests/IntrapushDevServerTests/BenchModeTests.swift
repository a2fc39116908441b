// SPDX-License-Identifier: Apache-2.0

import Foundation
import IntrapushDevServer
import NIOCore
import Testing

@Suite("Bench mode: steady runs, timings, the bench client", .timeLimit(.minutes(1)))
struct BenchModeTests {
    @Test("a steady run sends count pushes at the given rate and records one latency per acknowledged push")
    func steadyRun() async throws {
        let count = 20
        let rate = 200
        try await withDevServer { server, client in
            try await TestWebSocket.withConnection(to: server.localAddress, path: connectPath()) { socket in
                let requested = ContinuousClock.now
                try await client.steady(count: count, rate: rate, prefix: "st-")
                var ids: [String] = []
                for _ in 0..<count {
                    let text = try await socket.nextText()
                    ids.append(try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])["id"] as! String)
                    try await socket.send(text: "received message")
                }
                // The last push is due 19 intervals of 5 ms after the first; a stalled loop may
                // send late pushes back to back, but never one before it is due.
                #expect(ContinuousClock.now - requested >= .milliseconds(95))
                #expect(try await socket.sync().isEmpty)
                #expect(ids == (1...count).map { "st-\($0)" })
            }
            let stats = try await client.stats()
            #expect(stats.acked == count)
            #expect(stats.ackMismatches == 0)
            #expect(stats.ackLatencyMicroseconds.count == count)
            #expect(stats.ackLatencyMicroseconds.p50 > 0)
            #expect(stats.ackLatencyMicroseconds.max >= stats.ackLatencyMicroseconds.p99)

            try await client.control("reset-latency")
            #expect(try await client.stats().ackLatencyMicroseconds == LatencySummary())
        }
    }

    @Test("each accepted connection's time is recorded, on the same monotonic clock as started_monotonic_us")
    func connectionTimes() async throws {
        try await withDevServer { server, client in
            for _ in 0..<3 {
                _ = try await TestWebSocket.withConnection(to: server.localAddress, path: connectPath()) { socket in
                    try await socket.sync()
                }
            }
            let stats = try await client.stats()
            let nowMicroseconds = Int(NIODeadline.now().uptimeNanoseconds / 1_000)
            #expect(stats.connectionTimesMicroseconds.count == 3)
            #expect(stats.connectionTimesMicroseconds == stats.connectionTimesMicroseconds.sorted())
            #expect(stats.startedMonotonicMicroseconds > 0)
            #expect(stats.startedMonotonicMicroseconds + stats.connectionTimesMicroseconds.last! <= nowMicroseconds)
        }
    }

    @Test("the bench client acknowledges every push of a burst, after the burst's queued time")
    func benchClientAcknowledgesBurst() async throws {
        let count = 5_000
        try await withDevServer { server, client in
            let answer = try await client.send(.POST, "/push/burst?count=\(count)&size=300&prefix=bc-")
            let burst = try #require(try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Int])
            let benchClient = BenchClient(
                server: server.localAddress, path: BenchClient.connectPath(org: "acme", token: testToken))
            try await withThrowingTaskGroup { group in
                group.addTask { try await benchClient.run() }
                try await waitUntil { try await client.stats().acked == count }
                group.cancelAll()
                try await group.waitForAll()
            }
            let stats = try await client.stats()
            #expect(stats.acked == count)
            #expect(stats.acks == count)
            #expect(stats.ackMismatches == 0)
            #expect(stats.lastCloseCode == 1000)
            #expect(try #require(stats.lastAckMicroseconds) >= burst["queued_us"]!)
        }
    }

    @Test("the bench client reports a refused upgrade")
    func benchClientRefused() async throws {
        try await withDevServer { server, _ in
            let benchClient = BenchClient(server: server.localAddress, path: BenchClient.connectPath(org: "acme", token: "guess"))
            await #expect(throws: DevServerError.self) { try await benchClient.run() }
        }
    }
}

/// Polls `condition` every few milliseconds until it holds; fails after `timeout`.
func waitUntil(timeout: Duration = .seconds(20), _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while try await !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("condition not met within \(timeout)")
            return
        }
        try await Task.sleep(for: .milliseconds(5))
    }
}
