// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import IntrapushDaemonKit

@Suite("Watchdog schedule and store progress")
struct WatchdogScheduleTests {
    let start = ContinuousClock.Instant.now

    func at(_ seconds: Double) -> ContinuousClock.Instant {
        start.advanced(by: .milliseconds(Int64(seconds * 1000)))
    }

    @Test("the first turn feeds; later turns feed at most every quarter period")
    func quarterPeriodSpacing() {
        var schedule = WatchdogSchedule(period: .seconds(30))
        #expect(schedule.isDue(at: at(0)))
        schedule.fed(at: at(0))
        #expect(!schedule.isDue(at: at(7.4)))
        #expect(schedule.isDue(at: at(7.5)))
    }

    @Test("heartbeats every 10 s with a 30 s watchdog: every heartbeat feeds, no fallback turn is armed")
    func heartbeatsCarryTheFeeding() {
        var schedule = WatchdogSchedule(period: .seconds(30))
        var feeds = 0
        for heartbeat in 0..<6 {
            let now = at(Double(heartbeat) * 10)
            #expect(schedule.isDue(at: now))
            schedule.fed(at: now)
            feeds += 1
            let arms = schedule.armsFallback(heartbeatInterval: .seconds(10))
            #expect(!arms)
        }
        #expect(feeds == 6)
    }

    @Test("heartbeats further apart than half the period, or none, need the fallback turn; one at a time")
    func fallbackWithoutFrequentHeartbeats() {
        var schedule = WatchdogSchedule(period: .seconds(30))
        let slowHeartbeats = schedule.armsFallback(heartbeatInterval: .seconds(16))
        let whileOneIsArmed = schedule.armsFallback(heartbeatInterval: nil)  // one is on its way already
        schedule.fallbackFired()
        let disconnected = schedule.armsFallback(heartbeatInterval: nil)
        #expect(slowHeartbeats && !whileOneIsArmed && disconnected)
        #expect(schedule.fallbackDelay == .seconds(15))
    }

    @Test("an idle writer is never stalled; waiting work is, from when it arrived or last moved")
    func storeProgress() {
        var progress = StoreProgress(at: at(0))
        #expect(progress.stalledFor(at: at(100)) == nil)
        progress.submitted(at: at(100))
        progress.submitted(at: at(101))
        #expect(progress.stalledFor(at: at(105)) == .seconds(5))
        progress.finished(at: at(106))
        #expect(progress.stalledFor(at: at(120)) == .seconds(14))
        progress.finished(at: at(121))
        #expect(progress.stalledFor(at: at(500)) == nil)
    }
}
