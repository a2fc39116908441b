// SPDX-License-Identifier: Apache-2.0

import NIOCore

/// The time from flushing each timed push to reading its acknowledgement, for one steady run.
///
/// Pure bookkeeping: the caller passes the clock readings. A push flushed again (redelivered
/// after a reconnect) is timed from its last flush; an acknowledgement of a push whose flush was
/// not recorded, for example from before a ``reset()``, is ignored.
struct AcknowledgementLatencies {
    private var flushTimes: [Int: NIODeadline] = [:]
    /// Latencies in microseconds, in the order the acknowledgements arrived.
    private(set) var samples: [Int] = []

    /// Forgets every flush and sample, for a new run.
    mutating func reset() {
        flushTimes = [:]
        samples = []
    }

    mutating func pushFlushed(sequenceNumber: Int, at time: NIODeadline) {
        flushTimes[sequenceNumber] = time
    }

    mutating func pushAcknowledged(sequenceNumber: Int, at time: NIODeadline) {
        guard let flushed = flushTimes.removeValue(forKey: sequenceNumber) else { return }
        samples.append(Int((time - flushed).nanoseconds / 1_000))
    }

    var summary: LatencySummary {
        LatencySummary(samples: samples)
    }
}
