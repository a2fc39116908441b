// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import IntrapushDaemonKit

/// The local API's reads: a quick lane and a scan lane, people in turn on each, one running per
/// lane, a few waiting per person, and calls whose caller went taken off.
@Suite("The schedule of the local API's reads")
struct QueryScheduleTests {
    @Test("a read never waits behind a search: the lanes run side by side")
    func lanesApart() throws {
        var schedule = QuerySchedule(maximumWaiting: 4)
        let scan = try schedule.submitted(1, by: 1000, on: .scan)
        let quick = try schedule.submitted(2, by: 2000, on: .quick)
        #expect(scan == [.run(1, .scan)])
        #expect(quick == [.run(2, .quick)])
    }

    @Test("searches of two people go a piece each in turn")
    func searchesInTurn() throws {
        var schedule = QuerySchedule(maximumWaiting: 4)
        _ = try schedule.submitted(1, by: 1000, on: .scan)
        #expect(try schedule.submitted(2, by: 2000, on: .scan).isEmpty, "one piece at a time on the lane")
        #expect(schedule.pieceFinished(1, isDone: false) == [.run(2, .scan)], "the other person's piece next")
        #expect(schedule.pieceFinished(2, isDone: false) == [.run(1, .scan)])
        #expect(schedule.pieceFinished(1, isDone: true) == [.run(2, .scan)])
        #expect(schedule.pieceFinished(2, isDone: true).isEmpty)
    }

    @Test("a person's many calls wait their turn behind one call of each other person's")
    func roundRobin() throws {
        var schedule = QuerySchedule(maximumWaiting: 4)
        _ = try schedule.submitted(1, by: 1000, on: .quick)
        for job in 2...4 { _ = try schedule.submitted(job, by: 1000, on: .quick) }
        _ = try schedule.submitted(10, by: 2000, on: .quick)
        #expect(schedule.pieceFinished(1, isDone: true) == [.run(10, .quick)], "the other person before the rest of the first's")
        #expect(schedule.pieceFinished(10, isDone: true) == [.run(2, .quick)])
    }

    @Test("past a few waiting calls a person is told Busy, on that lane only")
    func busyPerPersonAndLane() throws {
        var schedule = QuerySchedule(maximumWaiting: 2)
        for job in 1...3 { _ = try schedule.submitted(job, by: 1000, on: .scan) }
        #expect(throws: QuerySchedule.Busy.self) { try schedule.submitted(4, by: 1000, on: .scan) }
        #expect(try schedule.submitted(5, by: 1000, on: .quick) == [.run(5, .quick)])
        #expect(try schedule.submitted(6, by: 2000, on: .scan).isEmpty, "another person is not Busy for it")
    }

    @Test("a call whose caller went: taken off while it waits, ended by its piece while it runs")
    func cancelled() throws {
        var schedule = QuerySchedule(maximumWaiting: 4)
        _ = try schedule.submitted(1, by: 1000, on: .scan)
        _ = try schedule.submitted(2, by: 2000, on: .scan)
        #expect(schedule.cancelled(2) == (wasWaiting: true, actions: []))
        #expect(schedule.cancelled(1).wasWaiting == false, "its piece runs; it ends with it")
        #expect(schedule.pieceFinished(1, isDone: true).isEmpty)
        #expect(schedule.jobs(on: .scan) == 0)
    }
}
