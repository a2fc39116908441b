// SPDX-License-Identifier: Apache-2.0

/// When the write-ahead log is copied back into the database file, and on which thread.
///
/// The copy of the bulk runs beside the writer (`Checkpointer`), so that no commit waits for it.
/// But SQLite starts the WAL over only when a write begins with every frame copied, and under a
/// steady stream some commit always lands while a copy beside it runs. Queued again after every
/// commit past the threshold, that copy ran after nearly every push with two syncs of its own,
/// each one contending with the commits' syncs for the disk, and the WAL still never started
/// over. So the bulk is copied beside the writer once per `threshold` frames not yet copied, and
/// then the writer's own loop copies what came meanwhile, a few frames, between two of its
/// commits: the next write starts the WAL over, as after SQLite's own automatic checkpoint. When
/// what came meanwhile is a bulk itself, that is copied beside the writer too; and while the
/// writer commits a burst, the rest waits for the next bulk: the loop has no time to spare
/// between two commits, and the copy's two syncs would stall it.
///
/// A long reader (a search, piece after piece) holds a snapshot nearly all the time: a copy is
/// held back, and the WAL cannot start over while any reader uses it, so it grows, and every
/// commit appends to it, whose sync then writes the file's size too. So from the moment a copy
/// is due until the WAL has started over, such a reader holds no snapshot between its pieces: it
/// starts a copy itself if none runs, and waits, briefly, for the WAL to start over.
struct CheckpointSchedule {
    /// Frames not yet copied that start a copy: SQLite's own automatic checkpoint size.
    static let defaultThreshold = 1000

    /// Frames not yet copied that start a copy (the power-cut test lowers it, so that the WAL
    /// starts over inside a burst).
    let threshold: Int

    init(threshold: Int = Self.defaultThreshold) {
        self.threshold = threshold
    }

    enum Action: Equatable {
        /// Copy what is in the WAL on the checkpointer's thread; report `copyEnded`.
        case copyBeside
        /// Copy the rest on the writer's loop, after the work queued there; report `copyEnded`.
        case copyRestOnWriter
    }

    /// Where a copy ran.
    enum Place: Equatable {
        case beside
        case writer
    }

    /// The WAL's length after the last commit, in frames.
    private(set) var walFrames = 0
    /// Of those, the frames known to be in the database file.
    private(set) var copiedFrames = 0
    /// A copy is queued or running, on either thread: none other starts.
    private(set) var isCopying = false
    /// The writer's last batch was a burst's (`StoreWorker.syncBesideFrom`).
    private(set) var writerIsInBurst = false
    /// A copy is due or under way and the WAL has not started over since: long readers should
    /// hold no snapshot between their pieces.
    private(set) var readersShouldLetGo = false

    /// The writer began a batch, a burst's or not.
    mutating func writerBegan(burstBatch: Bool) -> [Action] {
        writerIsInBurst = burstBatch
        return []
    }

    /// A commit ended and the WAL is `frames` long (a shorter WAL than before has started over).
    mutating func committed(walFrames frames: Int) -> [Action] {
        if frames < walFrames {
            copiedFrames = 0
            readersShouldLetGo = false
        }
        walFrames = frames
        guard !isCopying, frames - copiedFrames >= threshold else { return [] }
        isCopying = true
        readersShouldLetGo = true
        return [.copyBeside]
    }

    /// A long reader let its snapshot go between two pieces while a copy was due: the copy
    /// that readers held back runs again now, unless one is under way.
    mutating func readerLetGo() -> [Action] {
        guard readersShouldLetGo, !isCopying, walFrames > copiedFrames else { return [] }
        isCopying = true
        return [.copyBeside]
    }

    /// A long reader waited and the WAL did not start over (the writer may be idle, with no
    /// write to start it over, or another reader holds it): readers go on until the next copy
    /// is due, rather than wait at every piece.
    mutating func readerWaitedInVain() -> [Action] {
        readersShouldLetGo = false
        return []
    }

    /// A copy ended: the WAL was `walFrames` long as it saw it, and `copied` of them are in the
    /// database file; both nil when it failed.
    mutating func copyEnded(at place: Place, walFrames seen: Int?, copied: Int?) -> [Action] {
        if let seen, let copied {
            // A WAL longer than the last commit reported is one that has started over since.
            copiedFrames = seen <= walFrames ? copied : 0
        }
        guard place == .beside, let seen, let copied else {
            isCopying = false
            if seen == nil { readersShouldLetGo = false }  // failed: nothing to wait for
            return []
        }
        // A reader held the copy back: the WAL cannot start over until it lets go, and copying
        // the rest on the writer would only cost the pushes the copy's two syncs. A long reader
        // starts the next copy between its pieces (`readerLetGo`).
        guard copied >= seen else {
            isCopying = false
            return []
        }
        // In a burst the commits made meanwhile can be a bulk of their own: not on the writer.
        if walFrames - copiedFrames >= threshold { return [.copyBeside] }
        guard !writerIsInBurst else {
            isCopying = false  // the rest goes with the next bulk, beside the writer
            readersShouldLetGo = false  // not before the burst ends: readers go on
            return []
        }
        return [.copyRestOnWriter]
    }
}
