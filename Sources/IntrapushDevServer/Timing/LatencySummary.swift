// SPDX-License-Identifier: Apache-2.0

/// Percentiles of push→acknowledgement latencies, in microseconds, as `GET /stats` reports them
/// under `ack_latency_us`.
///
/// Percentiles are nearest-rank: `p50` is the smallest sample that at least half of all samples
/// do not exceed. Every figure is 0 while `count` is 0.
package struct LatencySummary: Codable, Sendable, Equatable {
    package var count: Int
    package var p50: Int
    package var p90: Int
    package var p99: Int
    package var max: Int

    package init(count: Int = 0, p50: Int = 0, p90: Int = 0, p99: Int = 0, max: Int = 0) {
        self.count = count
        self.p50 = p50
        self.p90 = p90
        self.p99 = p99
        self.max = max
    }

    /// Summarises samples given in any order.
    package init(samples: [Int]) {
        guard !samples.isEmpty else {
            self.init()
            return
        }
        let sorted = samples.sorted()
        func percentile(_ percent: Int) -> Int {
            // Nearest rank: ceil(percent/100 × n), counted from 1.
            let rank = (percent * sorted.count + 99) / 100
            return sorted[Swift.max(rank, 1) - 1]
        }
        self.init(count: sorted.count, p50: percentile(50), p90: percentile(90), p99: percentile(99), max: sorted.last!)
    }
}
