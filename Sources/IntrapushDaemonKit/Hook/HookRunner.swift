// SPDX-License-Identifier: Apache-2.0

import IntrapushConfiguration
import IntrapushInterface
import IntrapushStore
import IntrapushSupport
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// Runs the `on_notification` command once per stored notification, without ever making the
/// caller wait.
///
/// `submit` only queues, under a lock, and returns. One dedicated thread starts the hooks, at most
/// `maximumConcurrentRuns` at once, with the notification as JSON on stdin and in
/// `INTRAPUSH_*` variables, and watches them with poll(2) on a pidfd per child: no SIGCHLD
/// handler, no wildcard wait, so the children of the rest of the process are never touched.
/// Beyond the free slots notifications wait, up to `queueCapacity`; then the oldest waiting one
/// is dropped with a warning. A run past `timeout` gets SIGTERM, then SIGKILL, to its whole
/// process group. Each run's end is logged: info on exit status 0, warning otherwise.
///
/// Call `shutdown` before letting go of the runner: the thread runs until then.
final class HookRunner: Sendable {
    let command: HookCommandLine
    let settings: Settings
    private let state: NIOLockedValueBox<HookRunnerState>
    private let wakeup: WakeupPipe
    private let thread: WorkerThread
    private let logger: Logger

    /// Starts the hook thread. `environment` is what hooks inherit, before the secrets and
    /// systemd's variables are taken out.
    init(
        command: HookCommandLine, settings: Settings = Settings(),
        environment: [String: String] = ProcessEnvironment.current, logger: Logger
    ) throws(HookSystemError) {
        self.command = command
        self.settings = settings
        self.logger = logger
        let state = NIOLockedValueBox(HookRunnerState())
        let wakeup: WakeupPipe
        do {
            wakeup = try WakeupPipe()
        } catch {
            throw HookSystemError("create the hook wake-up pipe", code: error.code)
        }
        self.state = state
        self.wakeup = wakeup
        thread = WorkerThread(name: .hook)
        let hookEnvironment = HookEnvironment(inheriting: environment)
        thread.submit { _ in
            var supervisor = HookSupervisor(
                command: command, settings: settings, environment: hookEnvironment, state: state, wakeup: wakeup,
                logger: logger
            )
            supervisor.run()
        }
    }

    /// Queues a hook run for `record` and returns at once. After `shutdown` it does nothing.
    func submit(_ record: NotificationRecord) {
        let capacity = settings.queueCapacity
        let slots = settings.maximumConcurrentRuns
        let byteCapacity = settings.queueByteCapacity
        let (accepted, dropped) = state.withLockedValue { state -> (Bool, [Int64]) in
            guard state.stopDeadline == nil else { return (false, []) }
            if state.slotsInUse < slots {
                state.slotsInUse += 1
                state.toStart.append(record)
                return (true, [])
            }
            var dropped: [Int64] = []
            while let oldest = state.waiting.first,
                state.waiting.count >= capacity || state.waitingBytes + record.byteCount > byteCapacity
            {
                state.waiting.removeFirst()
                state.waitingBytes -= oldest.byteCount
                state.counters.dropped += 1
                dropped.append(oldest.id)
            }
            state.waiting.append(record)
            state.waitingBytes += record.byteCount
            return (true, dropped)
        }
        guard accepted else {
            logger.debug("hook not run: shutting down", metadata: ["notification": "\(record.id)"])
            return
        }
        wakeup.wake()
        if !dropped.isEmpty {
            logger.warning(
                "hook queue full (\(capacity) notifications or \(byteCapacity >> 20) MiB waiting): the oldest waiting notifications' hooks are dropped",
                metadata: ["notification": "\(dropped.map(String.init).joined(separator: " "))"]
            )
        }
    }

    /// Queues one run per row a committed batch added (duplicates added none).
    func submit(_ pushes: [Push], outcomes: [StoreOutcome]) {
        for record in NotificationRecord.stored(pushes, outcomes: outcomes) { submit(record) }
    }

    var counters: Counters {
        state.withLockedValue { $0.counters }
    }

    /// Stops accepting and drops what waits; running hooks get `gracePeriod` to finish, then
    /// their process groups get SIGKILL. Returns once every child is reaped and the thread ended.
    ///
    /// A later call only brings the deadline forward (the daemon stopping while a runner that a
    /// reload replaced lets its hooks finish) and returns at once; the first call still returns
    /// when the thread has ended.
    func shutdown(gracePeriod: Duration = .seconds(2)) async {
        let deadline = ContinuousClock.now + gracePeriod
        let droppedCount = state.withLockedValue { state -> Int in
            if let earlier = state.stopDeadline {
                state.stopDeadline = min(earlier, deadline)
                return 0
            }
            state.stopDeadline = deadline
            let count = state.waiting.count + state.toStart.count
            state.slotsInUse -= state.toStart.count
            state.waiting.removeAll()
            state.waitingBytes = 0
            state.toStart.removeAll()
            state.counters.dropped += count
            return count
        }
        if droppedCount > 0 {
            logger.warning("\(droppedCount) waiting hook runs dropped: shutting down")
        }
        wakeup.wake()
        await thread.shutdown()
    }
}
