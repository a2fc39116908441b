// SPDX-License-Identifier: Apache-2.0

import Logging
import NIOConcurrencyHelpers
#if canImport(Glibc)
import Glibc
#endif
import IntrapushConfiguration
import IntrapushInterface
import IntrapushSupport

/// The hook thread's loop: starts what `submit` handed over, sleeps in poll(2) on the wake-up
/// pipe, every child's pidfd and stderr, enforces deadlines, reaps and reports.
///
/// Everything here lives on that one thread; only `state` is shared, under its lock.
struct HookSupervisor {
    let command: HookCommandLine
    let settings: HookRunner.Settings
    let environment: HookEnvironment
    let state: NIOLockedValueBox<HookRunnerState>
    let wakeup: WakeupPipe
    let logger: Logger
    private var running: [HookProcess] = []

    /// How often children are checked when the kernel has no pidfd.
    private static let reapPollInterval = Duration.milliseconds(20)

    init(
        command: HookCommandLine, settings: HookRunner.Settings, environment: HookEnvironment,
        state: NIOLockedValueBox<HookRunnerState>, wakeup: WakeupPipe, logger: Logger
    ) {
        self.command = command
        self.settings = settings
        self.environment = environment
        self.state = state
        self.wakeup = wakeup
        self.logger = logger
    }

    /// Returns once `shutdown` was called and every child has been reaped.
    mutating func run() {
        while true {
            let (records, stopDeadline) = state.withLockedValue { state in
                defer { state.toStart.removeAll() }
                return (state.toStart, state.stopDeadline)
            }
            for record in records { start(record) }
            if stopDeadline != nil && running.isEmpty { return }
            let wakeAt = enforceDeadlines(now: .now, stopDeadline: stopDeadline)
            waitForEvents(until: wakeAt)
            reapFinished()
        }
    }

    private mutating func start(_ record: NotificationRecord) {
        var json = ""
        record.appendJSONLine(to: &json)
        do {
            let process = try HookProcess.spawn(
                command, environment: environment.entries(for: record), input: Array(json.utf8),
                notificationID: record.id, standardErrorLimit: settings.standardErrorLimit, at: .now
            )
            running.append(process)
            state.withLockedValue { $0.counters.started += 1 }
        } catch {
            state.withLockedValue { state in
                state.counters.failed += 1
                state.releaseSlot()
            }
            logger.warning("cannot start the hook", metadata: ["notification": "\(record.id)", "error": "\(error)"])
        }
    }

    /// Signals what is overdue; returns when the next deadline falls, if any.
    private func enforceDeadlines(now: ContinuousClock.Instant, stopDeadline: ContinuousClock.Instant?) -> ContinuousClock.Instant? {
        var next: ContinuousClock.Instant?
        func consider(_ instant: ContinuousClock.Instant) { next = min(next ?? instant, instant) }
        for process in running where !process.hasBeenKilled {
            if let stopDeadline, now >= stopDeadline {
                process.termination = process.termination ?? .shuttingDown
                process.signalGroup(SIGKILL)
                process.hasBeenKilled = true
                continue
            }
            if let killAt = process.killAt {
                if now >= killAt {
                    process.signalGroup(SIGKILL)
                    process.hasBeenKilled = true
                    continue
                }
                consider(killAt)
            } else if now >= process.startedAt + settings.timeout {
                process.termination = .timedOut
                process.signalGroup(SIGTERM)
                process.killAt = now + settings.killGracePeriod
                consider(now + settings.killGracePeriod)
            } else {
                consider(process.startedAt + settings.timeout)
            }
            if let stopDeadline { consider(stopDeadline) }
        }
        return next
    }

    private func waitForEvents(until wakeAt: ContinuousClock.Instant?) {
        var descriptors = [pollfd(fd: wakeup.readDescriptor, events: Int16(POLLIN), revents: 0)]
        var needsReapPolling = false
        for process in running {
            // A negative fd is skipped by poll(2): a closed stderr or a missing pidfd costs nothing.
            descriptors.append(pollfd(fd: process.pidDescriptor, events: Int16(POLLIN), revents: 0))
            descriptors.append(pollfd(fd: process.standardErrorDescriptor, events: Int16(POLLIN), revents: 0))
            needsReapPolling = needsReapPolling || process.pidDescriptor < 0
        }
        var timeout = wakeAt.map { $0 - .now }
        if needsReapPolling { timeout = min(timeout ?? Self.reapPollInterval, Self.reapPollInterval) }
        let milliseconds = timeout.map { Self.pollMilliseconds($0) } ?? -1
        _ = poll(&descriptors, nfds_t(descriptors.count), milliseconds)
        if descriptors[0].revents != 0 { wakeup.drain() }
        for process in running where process.standardErrorDescriptor >= 0 {
            process.readStandardError()
        }
    }

    /// Rounded up, so that a deadline is never polled for just before it falls.
    private static func pollMilliseconds(_ duration: Duration) -> Int32 {
        guard duration > .zero else { return 0 }
        let (seconds, attoseconds) = duration.components
        guard seconds < 3600 else { return 3_600_000 }
        return Int32(seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
    }

    private mutating func reapFinished() {
        var stillRunning: [HookProcess] = []
        for process in running {
            if let status = reapIfExited(process) {
                finish(process, status: status)
            } else {
                stillRunning.append(process)
            }
        }
        running = stillRunning
    }

    private func reapIfExited(_ process: HookProcess) -> HookExitStatus? {
        guard process.hasExited else { return nil }
        if process.termination != nil {
            // Still a zombie, so the group id cannot have been reused: finish off whatever
            // a hook we stopped left behind, before reaping it.
            process.signalGroup(SIGKILL)
        }
        return process.reapIfExited()
    }

    private func finish(_ process: HookProcess, status: HookExitStatus) {
        process.readStandardError()
        process.closeStandardError()
        let duration = ContinuousClock.Instant.now - process.startedAt
        state.withLockedValue { state in
            switch process.termination {
            case .timedOut: state.counters.timedOut += 1
            case .shuttingDown: state.counters.failed += 1
            case nil: if status.isSuccess { state.counters.succeeded += 1 } else { state.counters.failed += 1 }
            }
            state.releaseSlot()
        }
        HookRunReport(process: process, status: status, duration: duration, timeout: settings.timeout).log(to: logger)
    }
}
