// SPDX-License-Identifier: Apache-2.0

import IntrapushSupport

/// Feeding systemd's watchdog on the loop's turns (see `WatchdogSchedule`).
extension SessionLoop {
    /// After every event the loop handled: what rides on the loop's turns instead of timers
    /// of its own.
    mutating func loopTurned(tasks: inout DiscardingTaskGroup) {
        feedWatchdogIfDue(tasks: &tasks)
        writeMetricsFileIfDue()
    }

    private mutating func feedWatchdogIfDue(tasks: inout DiscardingTaskGroup) {
        guard var schedule = watchdog else { return }
        defer { watchdog = schedule }
        let now = ContinuousClock.now
        guard schedule.isDue(at: now) else { return }
        // This loop also commits the pushes: a write that does not finish keeps it from coming
        // here, and systemd restarts the daemon a period after the last feed.
        service.notifier.watchdogAlive()
        schedule.fed(at: now)
        let heartbeats = channel == nil ? nil : configuration.heartbeatInterval
        guard schedule.armsFallback(heartbeatInterval: heartbeats) else { return }
        self.schedule(.watchdogFallback, after: schedule.fallbackDelay, tasks: &tasks)
    }
}
