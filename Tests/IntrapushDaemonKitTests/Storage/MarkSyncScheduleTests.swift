// SPDX-License-Identifier: Apache-2.0

import NIOCore
import Testing

@testable import IntrapushDaemonKit

/// A slice of marks committed without SQLite's sync is answered only once a sync began after it:
/// the next push's while pushes flow, else one beside the loop.
@Suite("When a slice of marks is durable")
struct MarkSyncScheduleTests {
    static let start = NIODeadline.uptimeNanoseconds(1_000_000_000)
    static func at(_ milliseconds: Int64) -> NIODeadline { start + .milliseconds(milliseconds) }

    func schedule() -> MarkSyncSchedule {
        MarkSyncSchedule(rideFor: .milliseconds(2), flowWindow: .milliseconds(100))
    }

    @Test("with no push lately a slice is synced beside the loop at once, and durable when that sync returns")
    func noFlowSyncsBeside() {
        var syncs = schedule()
        #expect(syncs.sliceWritten(commit: 1, at: Self.at(0)) == [.syncBeside(through: 1)])
        #expect(syncs.synced(through: 1) == [.durable(through: 1)])
    }

    @Test("while pushes flow a slice waits for the next push's sync, adds none of its own, and is durable with it")
    func ridesOnPush() {
        var syncs = schedule()
        #expect(syncs.pushSynced(through: 1, at: Self.at(0)) == [.durable(through: 1)])
        #expect(syncs.sliceWritten(commit: 2, at: Self.at(1)) == [.armTimer(commit: 2, at: Self.at(3))])
        #expect(syncs.pushSynced(through: 3, at: Self.at(2)) == [.durable(through: 3)])
        #expect(syncs.waitEnded(for: 2, at: Self.at(3)).isEmpty, "the timer of a durable slice does nothing")
    }

    @Test("a push's sync that carries only commits before the slice does not answer it")
    func earlierSyncDoesNotCount() {
        var syncs = schedule()
        _ = syncs.pushSynced(through: 4, at: Self.at(0))
        _ = syncs.sliceWritten(commit: 5, at: Self.at(1))
        // A burst committed before the slice, its sync beside returning after the slice was written.
        #expect(syncs.pushSynced(through: 4, at: Self.at(2)).isEmpty)
        #expect(syncs.pushSynced(through: 6, at: Self.at(2)) == [.durable(through: 6)])
    }

    @Test("when no push comes within the wait the slice is synced beside the loop")
    func waitEndsInSyncBeside() {
        var syncs = schedule()
        _ = syncs.pushSynced(through: 1, at: Self.at(0))
        _ = syncs.sliceWritten(commit: 2, at: Self.at(1))
        #expect(syncs.waitEnded(for: 2, at: Self.at(3)) == [.syncBeside(through: 2)])
        #expect(syncs.synced(through: 2) == [.durable(through: 2)])
    }

    @Test("one sync beside at a time: a slice written while one runs is synced after it, unless a push's sync came first")
    func oneSyncBesideAtATime() {
        var syncs = schedule()
        #expect(syncs.sliceWritten(commit: 1, at: Self.at(0)) == [.syncBeside(through: 1)])
        #expect(syncs.pushSynced(through: 2, at: Self.at(1)) == [.durable(through: 2)], "a push's sync came first")
        #expect(syncs.sliceWritten(commit: 3, at: Self.at(2)) == [.armTimer(commit: 3, at: Self.at(4))])
        #expect(syncs.waitEnded(for: 3, at: Self.at(4)).isEmpty, "the first sync beside still runs")
        #expect(syncs.synced(through: 1) == [.syncBeside(through: 3)], "it carried commit 1 only: another for 3")
        #expect(syncs.synced(through: 3) == [.durable(through: 3)])
    }

    @Test("a slice that wrote nothing new is durable at once when what it found is")
    func nothingWritten() {
        var syncs = schedule()
        _ = syncs.pushSynced(through: 7, at: Self.at(0))
        #expect(syncs.sliceWritten(commit: 7, at: Self.at(1)) == [.durable(through: 7)])
    }

    @Test("pushes that stopped a while ago are no flow: the slice does not wait for them")
    func flowEnds() {
        var syncs = schedule()
        _ = syncs.pushSynced(through: 1, at: Self.at(0))
        #expect(syncs.sliceWritten(commit: 2, at: Self.at(101)) == [.syncBeside(through: 2)])
    }

    @Test("slices written while a sync runs are not held for it: the next sync carries them all")
    func slicesPipeline() {
        var syncs = schedule()
        #expect(syncs.sliceWritten(commit: 1, at: Self.at(0)) == [.syncBeside(through: 1)])
        #expect(syncs.sliceWritten(commit: 2, at: Self.at(0)).isEmpty)
        #expect(syncs.sliceWritten(commit: 3, at: Self.at(0)).isEmpty)
        #expect(syncs.synced(through: 1) == [.durable(through: 1), .syncBeside(through: 3)], "one sync for the two written meanwhile")
        #expect(syncs.synced(through: 3) == [.durable(through: 3)])
    }

    @Test("pushes flow while one was synced within the window")
    func flowing() {
        var syncs = schedule()
        #expect(!syncs.pushesFlow(at: Self.at(0)))
        _ = syncs.pushSynced(through: 1, at: Self.at(0))
        #expect(syncs.pushesFlow(at: Self.at(100)))
        #expect(!syncs.pushesFlow(at: Self.at(101)))
    }
}
