// SPDX-License-Identifier: Apache-2.0

import IntrapushStore
import Testing

@testable import IntrapushDaemonKit

/// The local API's marks on the push loop: slices examining at most the rows the shell gives,
/// small marks of a turn together in one transaction, people in turn, a mark of everything in
/// parts bounded by the rows they examine.
@Suite("The schedule of the local API's marks")
struct MarkScheduleTests {
    static func viewer(_ uid: Int64) -> Viewer { Viewer(userID: uid, userName: "u\(uid)", visibleNames: nil) }

    /// The parts of the commit among `actions`.
    static func parts(_ actions: [MarkSchedule.Action]) -> [MarkSchedule.Part] {
        for case .commit(let parts) in actions { return parts }
        return []
    }

    static func idsResult(_ count: Int) -> MarkPart.Result {
        MarkPart.Result(outcome: .init(marked: count))
    }

    @Test("a turn's small marks go in one slice, one transaction; the slice is scheduled once")
    func smallMarksCoalesce() {
        var schedule = MarkSchedule()
        #expect(schedule.markRequested(1, person: 1000, viewer: Self.viewer(1000), request: .ids([1])) == [.scheduleSlice])
        for job in 2...10 {
            #expect(schedule.markRequested(job, person: 1000, viewer: Self.viewer(1000), request: .ids([Int64(job)])).isEmpty)
        }
        let parts = Self.parts(schedule.sliceDue(rows: 64))
        #expect(parts.map(\.job) == Array(1...10), "ten marks, one transaction")
        let actions = schedule.sliceCommitted(parts.map { _ in Self.idsResult(1) })
        #expect(actions == (1...10).map { .complete($0, .init(marked: 1)) })
        #expect(schedule.pendingJobs == 0)
    }

    @Test("thousands of one person's marks go 64 ids a slice, each slice scheduled behind what the loop has to do")
    func floodInSlices() {
        var schedule = MarkSchedule()
        for job in 1...1000 { _ = schedule.markRequested(job, person: 1000, viewer: Self.viewer(1000), request: .ids([Int64(job)])) }
        var slices = 0
        var actions = [MarkSchedule.Action.scheduleSlice]
        while actions.contains(.scheduleSlice) {
            let parts = Self.parts(schedule.sliceDue(rows: 64))
            #expect(parts.count <= 64)
            slices += 1
            actions = schedule.sliceCommitted(parts.map { _ in Self.idsResult(1) })
        }
        #expect(slices == 16, "1,000 marks in 16 slices of at most 64")
        #expect(schedule.pendingJobs == 0)
    }

    @Test("another person's mark waits one slice, not for the neighbour's queue; people take turns")
    func peopleInTurn() {
        var schedule = MarkSchedule()
        for job in 1...500 { _ = schedule.markRequested(job, person: 1000, viewer: Self.viewer(1000), request: .ids([Int64(job)])) }
        let first = Self.parts(schedule.sliceDue(rows: 64))
        _ = schedule.markRequested(9999, person: 2000, viewer: Self.viewer(2000), request: .ids([7]))
        let done = schedule.sliceCommitted(first.map { _ in Self.idsResult(1) })
        #expect(done.contains(.scheduleSlice))
        let second = Self.parts(schedule.sliceDue(rows: 64))
        #expect(second.contains { $0.job == 9999 }, "the newcomer is in the very next slice")
        #expect(second.filter { $0.viewer.userID == 1000 }.count <= 32, "the neighbour has half of it")
    }

    @Test("a mark of everything goes in parts after the last id, up to the bound its first part found, until none is left")
    func allInParts() {
        var schedule = MarkSchedule()
        _ = schedule.markRequested(1, person: 1000, viewer: Self.viewer(1000), request: .all)
        var parts = Self.parts(schedule.sliceDue(rows: 64))
        #expect(parts.map(\.work) == [.unread(after: 0, upTo: nil, limit: 64)])
        var actions = schedule.sliceCommitted([MarkPart.Result(outcome: .init(marked: 64), lastID: 80, upTo: 500, isExhausted: false)])
        #expect(actions == [.scheduleSlice])
        parts = Self.parts(schedule.sliceDue(rows: 64))
        #expect(parts.map(\.work) == [.unread(after: 80, upTo: 500, limit: 64)])
        actions = schedule.sliceCommitted([MarkPart.Result(outcome: .init(marked: 10, receipts: 3), lastID: 500, upTo: 500, isExhausted: true)])
        #expect(actions == [.complete(1, .init(marked: 74, receipts: 3))], "the caller hears the whole")
    }

    @Test("a slice that failed fails its marks; the others go on")
    func failedSlice() {
        var schedule = MarkSchedule()
        _ = schedule.markRequested(1, person: 1000, viewer: Self.viewer(1000), request: .ids([1, 2, 3]))
        _ = schedule.markRequested(2, person: 2000, viewer: Self.viewer(2000), request: .ids([4]))
        let parts = Self.parts(schedule.sliceDue(rows: 2))
        #expect(parts.map(\.job) == [1, 2])
        #expect(schedule.sliceFailed() == [.fail(1, keptSoFar: .init()), .fail(2, keptSoFar: .init())])
        #expect(schedule.pendingJobs == 0)
    }

    @Test("a mark of everything that fails after some slices says what it kept")
    func partlyDone() {
        var schedule = MarkSchedule()
        _ = schedule.markRequested(1, person: 1000, viewer: Self.viewer(1000), request: .all)
        _ = schedule.sliceDue(rows: 64)
        _ = schedule.sliceCommitted([MarkPart.Result(outcome: .init(marked: 60), lastID: 64, upTo: 500, isExhausted: false)])
        _ = schedule.sliceDue(rows: 64)
        #expect(schedule.sliceFailed() == [.fail(1, keptSoFar: .init(marked: 60))])
    }

    @Test("the rows a slice may examine are the shell's to say: a quiet loop takes longer slices")
    func rowsFromTheShell() {
        var schedule = MarkSchedule()
        _ = schedule.markRequested(1, person: 1000, viewer: Self.viewer(1000), request: .all)
        #expect(Self.parts(schedule.sliceDue(rows: 512)).map(\.work) == [.unread(after: 0, upTo: nil, limit: 512)])
    }
}
