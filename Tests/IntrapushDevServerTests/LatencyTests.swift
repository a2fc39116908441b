// SPDX-License-Identifier: Apache-2.0

import NIOCore
import Testing

@testable import IntrapushDevServer

@Suite("Acknowledgement latencies")
struct LatencyTests {
    /// Nearest-rank percentiles of 1…100 µs are the ranks themselves, whatever the order.
    @Test("percentiles of a known set are its nearest-rank values")
    func percentilesOfKnownSet() {
        var generator = SplitMix64(seed: 42)
        let summary = LatencySummary(samples: Array(1...100).shuffled(using: &generator))
        #expect(summary == LatencySummary(count: 100, p50: 50, p90: 90, p99: 99, max: 100))
    }

    @Test("a small set rounds ranks up, and no samples give zeros")
    func smallAndEmptySets() {
        #expect(LatencySummary(samples: [30, 10, 20]) == LatencySummary(count: 3, p50: 20, p90: 30, p99: 30, max: 30))
        #expect(LatencySummary(samples: [7]) == LatencySummary(count: 1, p50: 7, p90: 7, p99: 7, max: 7))
        #expect(LatencySummary(samples: []) == LatencySummary())
    }

    @Test("a latency runs from the push's last flush to its acknowledgement; unknown pushes and resets are ignored")
    func flushToAcknowledgement() {
        let start = NIODeadline.uptimeNanoseconds(1_000_000_000)
        var latencies = AcknowledgementLatencies()
        latencies.pushFlushed(sequenceNumber: 1, at: start)
        latencies.pushFlushed(sequenceNumber: 2, at: start)
        latencies.pushFlushed(sequenceNumber: 2, at: start + .microseconds(100))  // redelivered
        latencies.pushAcknowledged(sequenceNumber: 1, at: start + .microseconds(250))
        latencies.pushAcknowledged(sequenceNumber: 2, at: start + .microseconds(400))
        latencies.pushAcknowledged(sequenceNumber: 3, at: start + .microseconds(500))
        latencies.pushAcknowledged(sequenceNumber: 1, at: start + .microseconds(600))
        #expect(latencies.samples == [250, 300])

        latencies.pushFlushed(sequenceNumber: 4, at: start)
        latencies.reset()
        latencies.pushAcknowledged(sequenceNumber: 4, at: start + .microseconds(10))
        #expect(latencies.samples.isEmpty)
    }
}
