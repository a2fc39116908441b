// SPDX-License-Identifier: Apache-2.0

import IntrapushInterface
import NIOCore

extension HookRunner {
    /// How many hooks run, how long they may take, what is kept of their stderr.
    struct Settings: Sendable {
        /// Hooks running at once; more wait in the queue.
        var maximumConcurrentRuns: Int
        /// Notifications waiting for a free slot; past it the oldest waiting one is dropped.
        var queueCapacity: Int
        /// The bytes those waiting notifications may hold together; past it, too, the oldest
        /// waiting ones are dropped (a thousand large notifications must not fill memory).
        var queueByteCapacity: Int
        /// A run still going after this gets SIGTERM, to its whole process group.
        var timeout: Duration
        /// Between SIGTERM and SIGKILL.
        var killGracePeriod: Duration
        /// Bytes of a run's stderr kept for the log line of a failed run.
        var standardErrorLimit: Int

        init(
            maximumConcurrentRuns: Int = 4, queueCapacity: Int = 1000, timeout: Duration = .seconds(30),
            killGracePeriod: Duration = .seconds(5), standardErrorLimit: Int = 4096, queueByteCapacity: Int = 64 << 20
        ) {
            self.queueByteCapacity = max(0, queueByteCapacity)
            self.maximumConcurrentRuns = max(1, maximumConcurrentRuns)
            self.queueCapacity = max(1, queueCapacity)
            self.timeout = timeout
            self.killGracePeriod = killGracePeriod
            self.standardErrorLimit = max(0, standardErrorLimit)
        }
    }

    /// What the hook did since the daemon started, for `status`.
    ///
    /// Every started run ends as exactly one of succeeded (exit status 0), failed (another status,
    /// a signal we did not send, or killed at shutdown) and timed out; a hook that cannot even be
    /// started (program not found) counts as failed without having started.
    struct Counters: Sendable, Equatable {
        var started = 0
        var succeeded = 0
        var failed = 0
        var timedOut = 0
        /// Waiting notifications dropped because the queue was full, or because the daemon stopped.
        var dropped = 0

        init() {}
    }
}

/// What `submit` and the hook thread share, under one lock.
struct HookRunnerState {
    /// Handed to the thread, not yet started; each holds a slot.
    var toStart: [NotificationRecord] = []
    /// Waiting for a slot, oldest first.
    var waiting = CircularBuffer<NotificationRecord>()
    /// What `waiting` holds, in bytes (`NotificationRecord.byteCount`).
    var waitingBytes = 0
    /// Runs in progress plus those in `toStart`, at most `maximumConcurrentRuns`.
    var slotsInUse = 0
    var counters = HookRunner.Counters()
    /// Set by `shutdown`: nothing new starts; what runs is killed at this instant.
    var stopDeadline: ContinuousClock.Instant?

    /// A run ended (or never started): its slot goes to the oldest waiting notification.
    mutating func releaseSlot() {
        slotsInUse -= 1
        if stopDeadline == nil, let next = waiting.popFirst() {
            waitingBytes -= next.byteCount
            toStart.append(next)
            slotsInUse += 1
        }
    }
}

extension NotificationRecord {
    /// The bytes of its text fields: what a waiting record holds.
    var byteCount: Int {
        payload.utf8.count + (title?.utf8.count ?? 0) + (body?.utf8.count ?? 0) + (messageID?.utf8.count ?? 0)
    }
}
