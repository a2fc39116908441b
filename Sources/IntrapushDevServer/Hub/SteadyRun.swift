// SPDX-License-Identifier: Apache-2.0

import NIOCore

/// A run of `POST /push/steady`: `count` generated pushes, one every `interval`, from `start` on.
struct SteadyRun {
    /// Tells a run's scheduled tasks apart from those of the run that replaced it.
    var number: Int
    var count: Int
    var interval: TimeAmount
    var size: Int
    var prefix: String
    var org: String
    var start: NIODeadline

    /// When the push at `index` (from 0) is due; computed from the start, so delays do not add up.
    func deadline(ofPushAt index: Int) -> NIODeadline {
        start + .nanoseconds(interval.nanoseconds * Int64(index))
    }
}

extension Hub {
    /// Starts sending `count` pushes at `rate` per second, each queued and flushed on its own,
    /// and resets the latencies; a run still in progress stops.
    ///
    /// - Returns: When the first push is due.
    func startSteadyRun(
        count: Int, rate: Int, size: Int, prefix: String, org: String, allocator: ByteBufferAllocator
    ) -> NIODeadline {
        let run = SteadyRun(
            number: (steadyRun?.number ?? 0) + 1, count: count, interval: .nanoseconds(1_000_000_000 / Int64(rate)),
            size: size, prefix: prefix, org: org, start: .now())
        steadyRun = run
        latencies.reset()
        logger.info("steady run of \(count) pushes at \(rate)/s for org \(org)")
        scheduleSteadyPush(at: 0, of: run, allocator: allocator)
        return run.start
    }

    private func scheduleSteadyPush(at index: Int, of run: SteadyRun, allocator: ByteBufferAllocator) {
        guard index < run.count else { return }
        eventLoop.assumeIsolated().scheduleTask(deadline: run.deadline(ofPushAt: index)) {
            guard self.steadyRun?.number == run.number else { return }
            _ = self.queueGenerated(
                count: 1, size: run.size, prefix: run.prefix, org: run.org, isTimed: true, allocator: allocator)
            self.deliverPending(to: run.org)
            self.scheduleSteadyPush(at: index + 1, of: run, allocator: allocator)
        }
    }
}
