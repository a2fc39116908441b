// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import IntrapushDaemonKit

@Suite("When the WAL is copied back, and where")
struct CheckpointScheduleTests {
    let threshold = CheckpointSchedule.defaultThreshold

    @Test("the bulk is copied beside the writer once the frames not yet copied reach the threshold, and only once")
    func bulkOnce() {
        var schedule = CheckpointSchedule()
        #expect(schedule.committed(walFrames: threshold - 1) == [])
        #expect(schedule.committed(walFrames: threshold) == [.copyBeside])
        #expect(schedule.committed(walFrames: threshold + 4) == [], "one copy at a time")
        #expect(schedule.committed(walFrames: 3 * threshold) == [], "one copy at a time")
    }

    @Test("after the bulk, the rest is copied on the writer; then the WAL may start over and nothing is copied until it grows again")
    func restOnWriterThenStartOver() {
        var schedule = CheckpointSchedule()
        _ = schedule.committed(walFrames: threshold)
        _ = schedule.committed(walFrames: threshold + 8)
        #expect(schedule.copyEnded(at: .beside, walFrames: threshold, copied: threshold) == [.copyRestOnWriter])
        #expect(schedule.committed(walFrames: threshold + 12) == [], "the rest is queued on the writer")
        #expect(schedule.copyEnded(at: .writer, walFrames: threshold + 12, copied: threshold + 12) == [])
        #expect(!schedule.isCopying)
        // The next write started the WAL over: its own frames are not copied yet.
        #expect(schedule.committed(walFrames: 4) == [])
        #expect(schedule.copiedFrames == 0)
        #expect(schedule.committed(walFrames: threshold - 1) == [])
        #expect(schedule.committed(walFrames: threshold) == [.copyBeside])
    }

    @Test("when the frames committed meanwhile are a bulk of their own (a burst), they are copied beside the writer too")
    func burstMeanwhile() {
        var schedule = CheckpointSchedule()
        _ = schedule.committed(walFrames: threshold)
        _ = schedule.committed(walFrames: 2 * threshold + 50)
        #expect(schedule.copyEnded(at: .beside, walFrames: threshold, copied: threshold) == [.copyBeside])
        #expect(schedule.isCopying)
        #expect(schedule.copyEnded(at: .beside, walFrames: 2 * threshold + 50, copied: 2 * threshold + 50) == [.copyRestOnWriter])
    }

    @Test("while the writer commits a burst the rest is not copied on it: it goes beside with the next bulk; after the burst the rest is the writer's again")
    func noRestOnWriterInBurst() {
        var schedule = CheckpointSchedule()
        #expect(schedule.writerBegan(burstBatch: true) == [])
        _ = schedule.committed(walFrames: threshold)
        _ = schedule.committed(walFrames: threshold + 300)
        #expect(schedule.copyEnded(at: .beside, walFrames: threshold, copied: threshold) == [])
        #expect(!schedule.isCopying)
        #expect(schedule.committed(walFrames: 2 * threshold - 1) == [], "the rest waits for a bulk")
        #expect(schedule.committed(walFrames: 2 * threshold) == [.copyBeside])
        _ = schedule.writerBegan(burstBatch: false)
        _ = schedule.committed(walFrames: 2 * threshold + 3)
        #expect(schedule.copyEnded(at: .beside, walFrames: 2 * threshold, copied: 2 * threshold) == [.copyRestOnWriter])
    }

    @Test("a WAL that could not start over (a reader held the copy back) is copied again only after as many new frames")
    func heldBack() {
        var schedule = CheckpointSchedule()
        _ = schedule.committed(walFrames: threshold)
        #expect(schedule.copyEnded(at: .beside, walFrames: threshold, copied: 600) == [],
                "held back: the rest is not copied on the writer, whose syncs would only cost the pushes")
        #expect(!schedule.isCopying)
        #expect(schedule.committed(walFrames: threshold + 8) == [], "not after every commit")
        #expect(schedule.committed(walFrames: 600 + threshold - 1) == [])
        #expect(schedule.committed(walFrames: 600 + threshold) == [.copyBeside])
    }

    @Test("a copy that failed is not followed by the rest, and the next commit past the threshold tries again")
    func failedCopy() {
        var schedule = CheckpointSchedule()
        _ = schedule.committed(walFrames: threshold)
        #expect(schedule.copyEnded(at: .beside, walFrames: nil, copied: nil) == [])
        #expect(!schedule.isCopying)
        #expect(schedule.committed(walFrames: threshold + 4) == [.copyBeside])
    }

    @Test("a copy's report from before the WAL started over does not count against the new WAL")
    func staleReport() {
        var schedule = CheckpointSchedule()
        _ = schedule.committed(walFrames: threshold)
        _ = schedule.copyEnded(at: .beside, walFrames: threshold, copied: threshold)
        _ = schedule.committed(walFrames: 8)  // started over before the rest was copied
        _ = schedule.copyEnded(at: .writer, walFrames: threshold + 4, copied: threshold + 4)
        #expect(schedule.copiedFrames == 0)
        #expect(schedule.committed(walFrames: threshold) == [.copyBeside])
    }

    @Test("a threshold of its own starts the copy at that many frames")
    func ownThreshold() {
        var schedule = CheckpointSchedule(threshold: 16)
        #expect(schedule.committed(walFrames: 15) == [])
        #expect(schedule.committed(walFrames: 16) == [.copyBeside])
        #expect(schedule.copyEnded(at: .beside, walFrames: 16, copied: 16) == [.copyRestOnWriter])
        #expect(schedule.copyEnded(at: .writer, walFrames: 16, copied: 16) == [])
        #expect(schedule.committed(walFrames: 4) == [], "started over")
        #expect(schedule.committed(walFrames: 15) == [])
        #expect(schedule.committed(walFrames: 16) == [.copyBeside])
    }

    @Test("from a copy being due until the WAL starts over, long readers let go between pieces, and one starts again a copy that readers held back")
    func readersLetGoUntilStartOver() {
        var schedule = CheckpointSchedule(threshold: 10)
        #expect(!schedule.readersShouldLetGo)
        #expect(schedule.readerLetGo() == [], "nothing due")
        #expect(schedule.committed(walFrames: 10) == [.copyBeside])
        #expect(schedule.readersShouldLetGo)
        #expect(schedule.readerLetGo() == [], "a copy runs already")
        #expect(schedule.copyEnded(at: .beside, walFrames: 10, copied: 4) == [], "held back")
        #expect(schedule.readersShouldLetGo)
        #expect(schedule.readerLetGo() == [.copyBeside], "the reader has let go: the copy again")
        #expect(schedule.committed(walFrames: 12) == [])
        #expect(schedule.copyEnded(at: .beside, walFrames: 12, copied: 12) == [.copyRestOnWriter])
        #expect(schedule.copyEnded(at: .writer, walFrames: 12, copied: 12) == [])
        #expect(schedule.readersShouldLetGo, "until the WAL starts over")
        #expect(schedule.committed(walFrames: 1) == [])
        #expect(!schedule.readersShouldLetGo)
    }

    @Test("a reader that waited in vain, and the readers after it, go on until the next copy is due")
    func readerWaitedInVain() {
        var schedule = CheckpointSchedule(threshold: 10)
        #expect(schedule.committed(walFrames: 10) == [.copyBeside])
        #expect(schedule.copyEnded(at: .beside, walFrames: 10, copied: 10) == [.copyRestOnWriter])
        #expect(schedule.copyEnded(at: .writer, walFrames: 10, copied: 10) == [])
        #expect(schedule.readerWaitedInVain() == [], "an idle writer: nothing to start the WAL over")
        #expect(!schedule.readersShouldLetGo)
        #expect(schedule.readerLetGo() == [])
    }

    @Test("in a burst, or after a copy that failed, readers do not wait for a start over that is not coming")
    func noWaitInBurstOrFailure() {
        var schedule = CheckpointSchedule(threshold: 10)
        #expect(schedule.writerBegan(burstBatch: true) == [])
        #expect(schedule.committed(walFrames: 10) == [.copyBeside])
        #expect(schedule.copyEnded(at: .beside, walFrames: 10, copied: 10) == [], "the rest goes with the next bulk")
        #expect(!schedule.readersShouldLetGo)
        #expect(schedule.committed(walFrames: 20) == [.copyBeside])
        #expect(schedule.copyEnded(at: .beside, walFrames: nil, copied: nil) == [])
        #expect(!schedule.readersShouldLetGo)
    }
}
