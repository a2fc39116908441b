// SPDX-License-Identifier: Apache-2.0

import Foundation
import IntrapushDevServer
import Testing

@Suite("Statistics JSON")
struct DevServerStatsTests {
    @Test("keys are snake_case and last_close_code is null, not missing, before any close")
    func encodingKeepsNull() throws {
        let data = try JSONEncoder().encode(DevServerStats(heartbeatTimesMilliseconds: [5], closeCodes: ["1000": 2]))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["last_close_code"] is NSNull)
        #expect(object["heartbeat_times_ms"] as? [Int] == [5])
        #expect(object["close_codes"] as? [String: Int] == ["1000": 2])
        #expect(Set(object.keys) == [
            "connections_total", "connections_open", "upgrades_rejected", "heartbeats", "heartbeat_times_ms",
            "pings", "pushes_queued", "deliveries", "acks", "acked", "unacked", "ack_mismatches", "hellos", "hellos_refused",
            "idle_drops",
            "acks_before_commit", "dropped_too_large", "close_codes", "last_close_code", "started_monotonic_us",
            "last_ack_us", "connection_times_us", "ack_latency_us", "hosts",
        ])
        #expect(object["last_ack_us"] is NSNull)
    }

    @Test("what the server encodes, the client decodes unchanged")
    func roundTrip() throws {
        let stats = DevServerStats(connectionsTotal: 3, acked: 7, closeCodes: ["1009": 1], lastCloseCode: 1009)
        #expect(try JSONDecoder().decode(DevServerStats.self, from: JSONEncoder().encode(stats)) == stats)
    }
}
