// SPDX-License-Identifier: Apache-2.0

import NIOCore
import Testing

@testable import IntrapushDaemonKit

@Suite("When a commit rewrites the live-state row")
struct LiveStateWriteScheduleTests {
    let start = NIODeadline.uptimeNanoseconds(1_000_000_000_000)

    @Test("the first commit writes it; those within the interval leave it to one write scheduled at the interval's end")
    func burst() {
        var schedule = LiveStateWriteSchedule()
        #expect(schedule.commitStarting(at: start) == .writeInCommit)
        let due = start + LiveStateWriteSchedule.interval
        #expect(schedule.commitStarting(at: start + .milliseconds(1)) == .writeLater(due))
        #expect(schedule.commitStarting(at: start + .milliseconds(2)) == .leaveOut, "one later write carries them all")
        schedule.written(at: due, wasScheduled: true)
        #expect(schedule.commitStarting(at: due + .milliseconds(1)) == .writeLater(due + LiveStateWriteSchedule.interval),
                "the scheduled write counts as the last one")
    }

    @Test("a commit after a quiet interval writes it again, and any other write of the row restarts the interval")
    func quiet() {
        var schedule = LiveStateWriteSchedule()
        #expect(schedule.commitStarting(at: start) == .writeInCommit)
        #expect(schedule.commitStarting(at: start + LiveStateWriteSchedule.interval) == .writeInCommit)
        let later = start + .seconds(5)
        schedule.written(at: later)  // the session's change of state
        #expect(schedule.commitStarting(at: later + .milliseconds(10)) == .writeLater(later + LiveStateWriteSchedule.interval))
    }
}
