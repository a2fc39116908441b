// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Synchronization
import IntrapushSupport
import TestSupport
import Testing

@testable import IntrapushDaemonKit
@testable import IntrapushStore

/// The writer on a real event loop and a real database file: a push read on that loop is
/// committed there with no hop, and a write that does not finish is visible from other threads.
@Suite("The store's writer")
struct StoreWorkerTests {
    let loops = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    let directory: TemporaryDirectory
    let worker: StoreWorker

    init() throws {
        directory = try TemporaryDirectory("writer")
        let store = try NotificationStore(path: directory.file())
        worker = Self.worker(store, on: loops.next())
    }

    func shutdown() async throws {
        await worker.shutdown()
        try await loops.shutdownGracefully()
    }

    @Test("on its own loop a commit is done when commit() returns: its future is complete and the row is there")
    func commitsWhereItReads() async throws {
        let loop = worker.executor.eventLoop
        let completedAtOnce = try await loop.submit {
            let isComplete = NIOLockedValueBox(false)
            worker.commit([.text(#"{"id":"a"}"#, id: "a")], on: loop).whenComplete { _ in isComplete.withLockedValue { $0 = true } }
            return isComplete.withLockedValue { $0 }
        }.get()
        #expect(completedAtOnce)
        let reader = try SQLiteConnection(path: directory.file(), mode: .readOnly)
        #expect(try reader.column("SELECT message_id FROM notifications") == ["a"])
        #expect(worker.currentLiveState.receivedTotal == 1)
        try await shutdown()
    }

    @Test("in a burst the row trails the commits, and a write after the burst brings it to the last one")
    func liveStateRowAfterBurst() async throws {
        // The burst's commits all happen at one instant, however slow this disk is today; the
        // write after it is scheduled on the loop for a second after that instant.
        let instant = NIODeadline.now()
        let worker = Self.worker(try NotificationStore(path: directory.file("burst")), on: loops.next(), now: { instant })
        let loop = worker.executor.eventLoop
        let path = directory.file("burst")
        let rowAfterBurst = try await loop.submit {
            for index in 0..<20 {
                worker.commit([.text(#"{"id":"m\#(index)"}"#, id: "m\(index)")], on: loop).whenFailure { _ in }
            }
            // Read before the loop runs anything else: the write after the burst waits behind this.
            return try LiveState.read(from: SQLiteConnection(path: path, mode: .readOnly))?.storedTotal
        }.get()
        #expect(rowAfterBurst == 1, "only the burst's first commit wrote the row")
        let reader = try SQLiteConnection(path: path, mode: .readOnly)
        #expect(worker.currentLiveState.storedTotal == 20, "what the daemon answers is never behind")
        try await eventually("the row to show the whole burst") { try LiveState.read(from: reader)?.storedTotal == 20 }
        await worker.shutdown()
        try await shutdown()
    }

    @Test("from another thread the commit runs on the writer's loop, and its future completes after it")
    func commitsFromElsewhere() async throws {
        let other = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let committed = try await worker.commit([.text(#"{"id":"b"}"#, id: "b")], on: other.next()).get()
        #expect(committed.outcomes.count == 1)
        try await other.shutdownGracefully()
        try await shutdown()
    }

    @Test("work arriving at an idle writer is told once; a write that does not finish shows as stalled, in the live state too, until it does")
    func stallIsVisible() async throws {
        let busy = Mutex(0)
        worker.executor.onBecameBusy { busy.withLock { $0 += 1 } }
        let release = NIOLockedValueBox(false)
        // Holds the writer's loop as an fsync that does not return would.
        worker.executor.submit { _ in
            while !release.withLockedValue({ $0 }) { usleep(1000) }
        }
        worker.executor.submit { _ in }  // queued behind it: the writer is already busy
        #expect(busy.withLock { $0 } == 1)
        #expect(worker.currentLiveState.commitRunningSince == nil, "not yet a second")
        try await eventually("the write to count as stalled") {
            (worker.stalledFor ?? .zero) >= StoreWorker.stallReportedAfter
        }
        let since = try #require(worker.currentLiveState.commitRunningSince)
        #expect(WallClock.nowMilliseconds() - since >= 1000)
        release.withLockedValue { $0 = true }
        try await eventually("the writer to be idle") { worker.executor.isIdle }
        #expect(worker.stalledFor == nil)
        #expect(worker.currentLiveState.commitRunningSince == nil)
        worker.executor.submit { _ in }
        try await eventually("the next write to finish") { worker.executor.isIdle }
        #expect(busy.withLock { $0 } == 2, "the next work at an idle writer is told again")
        try await shutdown()
    }

    @Test("a burst's batch is written on the loop at once and done only once its sync beside returns; a sync that hangs is a stall though the loop's own work finishes")
    func burstSyncedBeside() async throws {
        let release = ConditionLock(value: false)
        let worker = Self.worker(
            try NotificationStore(path: directory.file("beside")), on: loops.next(), syncWAL: Self.sync(after: release))
        let loop = worker.executor.eventLoop
        let pushes = (0..<StoreWorker.syncBesideFrom).map { index in Push.text(#"{"id":"b\#(index)"}"#, id: "b\(index)") }
        let isDone = NIOLockedValueBox(false)
        let committed = try await loop.submit {
            let future = worker.commit(pushes, on: loop)
            future.whenComplete { _ in isDone.withLockedValue { $0 = true } }
            return future
        }.get()
        let reader = try SQLiteConnection(path: directory.file("beside"), mode: .readOnly)
        #expect(try reader.integer("SELECT count(*) FROM notifications") == Int64(pushes.count), "written at once")
        try await loop.submit {}.get()  // the loop's own work goes on and finishes meanwhile
        try await eventually("the held sync to count as stalled") {
            (worker.stalledFor ?? .zero) >= StoreWorker.stallReportedAfter
        }
        #expect(!isDone.withLockedValue { $0 }, "not done before its sync")
        #expect(worker.currentLiveState.receivedTotal == 0, "not counted before its sync")
        #expect(!worker.executor.isIdle)
        release.lock()
        release.unlock(withValue: true)
        #expect(try await committed.get().outcomes.count == pushes.count)
        #expect(worker.currentLiveState.receivedTotal == Int64(pushes.count))
        try await eventually("the writer to be idle") { worker.executor.isIdle }
        #expect(worker.stalledFor == nil)
        await worker.shutdown()
        try await shutdown()
    }

    /// A slice of the local API's marks is committed on the loop without SQLite's sync and synced
    /// beside it: the loop spends only the marks' own work, and the caller hears of them once
    /// the sync returned.
    @Test("a slice of marks is written on the loop and answered only once its sync beside returns")
    func marksSyncedBeside() async throws {
        let release = ConditionLock(value: false)
        let path = directory.file("marks")
        let store = try NotificationStore(path: path)
        _ = try store.store((1...10).map { Push.text(#"{"id":"m\#($0)"}"#, id: "m\($0)") }, liveState: nil)
        let worker = Self.worker(store, on: loops.next(), syncWAL: Self.sync(after: release))
        let loop = worker.executor.eventLoop
        let viewer = Viewer(userID: 1000, userName: "alice", visibleNames: nil)
        let isDone = NIOLockedValueBox(false)
        let marked = worker.markRead(ids: [1, 2, 3], for: viewer, receipts: nil, on: loop)
        marked.whenComplete { _ in isDone.withLockedValue { $0 = true } }
        let reader = try SQLiteConnection(path: path, mode: .readOnly)
        try await eventually("the slice written on the loop") {
            try reader.integer("SELECT count(*) FROM notification_reads WHERE reader = 1000") == 3
        }
        try await loop.submit {}.get()  // the loop goes on meanwhile
        #expect(!isDone.withLockedValue { $0 }, "not answered before its sync")
        release.lock()
        release.unlock(withValue: true)
        #expect(try await marked.get().marked == 3)
        await worker.shutdown()
        try await shutdown()
    }

    /// While pushes flow, a slice of marks adds no sync of its own: the next push's sync, which
    /// carries every commit before it to the disk, makes it durable.
    @Test("while pushes flow, a slice of marks is answered with the next push's sync and nothing is synced beside")
    func marksRideOnPushes() async throws {
        let syncsBeside = NIOLockedValueBox(0)
        let path = directory.file("ride")
        let store = try NotificationStore(path: path)
        _ = try store.store((1...10).map { Push.text(#"{"id":"r\#($0)"}"#, id: "r\($0)") }, liveState: nil)
        let worker = Self.worker(
            store, on: loops.next(), syncWAL: Self.sync(counting: syncsBeside),
            // Waits as long as the test may: only a push's sync can answer the marks.
            markSyncs: MarkSyncSchedule(rideFor: .hours(1), flowWindow: .hours(1)))
        let loop = worker.executor.eventLoop
        let viewer = Viewer(userID: 1000, userName: "alice", visibleNames: nil)
        _ = try await loop.submit { worker.commit([Push.text(#"{"id":"p1"}"#, id: "p1")], on: loop) }.get().get()
        let isDone = NIOLockedValueBox(false)
        let marked = worker.markRead(ids: [1, 2, 3], for: viewer, receipts: nil, on: loop)
        marked.whenComplete { _ in isDone.withLockedValue { $0 = true } }
        let reader = try SQLiteConnection(path: path, mode: .readOnly)
        try await eventually("the slice written on the loop") {
            try reader.integer("SELECT count(*) FROM notification_reads WHERE reader = 1000") == 3
        }
        try await loop.submit {}.get()
        #expect(!isDone.withLockedValue { $0 }, "not answered before a sync that began after it")
        _ = try await loop.submit { worker.commit([Push.text(#"{"id":"p2"}"#, id: "p2")], on: loop) }.get().get()
        try await eventually("the marks answered after the push's sync") { isDone.withLockedValue { $0 } }
        #expect(try await marked.get().marked == 3)
        #expect(syncsBeside.withLockedValue { $0 } == 0, "no sync of its own")
        await worker.shutdown()
        try await shutdown()
    }

    /// SQLite's own checkpoint runs inside the commits then, where a sync beside would not cover
    /// what it copies: the batch keeps SQLite's sync in its commit.
    @Test("without the checkpointer a burst's batch is synced in its commit: done when commit() returns, nothing synced beside; the log says so once")
    func noCheckpointerNoSyncBeside() async throws {
        let syncsBeside = NIOLockedValueBox(0)
        let logs = CapturedLogs()
        let worker = Self.worker(
            try NotificationStore(path: directory.file("alone")), on: loops.next(),
            logger: Logger(label: "test", factory: { _ in CapturedLogHandler(logs: logs) }),
            syncWAL: Self.sync(counting: syncsBeside),
            checkpoints: CheckpointSettings(startsCheckpointer: false))
        let loop = worker.executor.eventLoop
        for batch in 0..<2 {
            let pushes = (0..<StoreWorker.syncBesideFrom).map { index in Push.text(#"{"id":"b\#(batch)-\#(index)"}"#, id: "b\(batch)-\(index)") }
            let completedAtOnce = try await loop.submit {
                let isComplete = NIOLockedValueBox(false)
                worker.commit(pushes, on: loop).whenComplete { _ in isComplete.withLockedValue { $0 = true } }
                return isComplete.withLockedValue { $0 }
            }.get()
            #expect(completedAtOnce)
        }
        #expect(syncsBeside.withLockedValue { $0 } == 0)
        #expect(worker.currentLiveState.receivedTotal == Int64(2 * StoreWorker.syncBesideFrom))
        #expect(logs.entries.map(\.message) == [
            "the checkpointer did not start (switched off by INTRAPUSH_TEST_NO_CHECKPOINTER): SQLite copies the write-ahead log back inside the commits, and every batch of pushes is synced in its own commit",
        ])
        #expect(logs.entries.first?.level == .warning)
        await worker.shutdown()
        try await shutdown()
    }

    /// Only our checkpointer turns SQLite's automatic checkpoint off; without it the WAL must
    /// still be copied back (and start over), by SQLite inside the commits.
    @Test("without the checkpointer SQLite checkpoints inside the commits, past the threshold given")
    func noCheckpointerAutomaticCheckpoint() async throws {
        let path = directory.file("automatic")
        let worker = Self.worker(
            try NotificationStore(path: path), on: loops.next(),
            checkpoints: CheckpointSettings(threshold: 20, startsCheckpointer: false))
        let loop = worker.executor.eventLoop
        let body = String(repeating: "x", count: 400)
        for batch in 0..<10 {
            let pushes = (0..<StoreWorker.syncBesideFrom).map { index in
                Push.text(#"{"id":"a\#(batch)-\#(index)","body":"\#(body)"}"#, id: "a\(batch)-\(index)")
            }
            _ = try await loop.flatSubmit { worker.commit(pushes, on: loop) }.get()
        }
        await worker.shutdown()
        // Only a checkpoint writes the database file itself: the batches were some 100 pages.
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
        #expect(size >= 40 * 4096, "the rows reached the database file")
        try await shutdown()
    }

    @Test("once stopped nothing more is written: queued work is told so, and a commit fails")
    func stopped() async throws {
        await worker.shutdown()
        await #expect(throws: StoreExecutor.Stopped.self) {
            try await worker.commit([.text(#"{"id":"c"}"#, id: "c")], on: worker.executor.eventLoop).get()
        }
        try await loops.shutdownGracefully()
    }
}

extension StoreWorkerTests {
    /// A connected worker on `store`, with the seams a test sets and the daemon's defaults for
    /// the rest; its logs go nowhere unless the test gives a logger.
    static func worker(
        _ store: NotificationStore, on loop: any EventLoop,
        logger: Logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
        now: @escaping @Sendable () -> NIODeadline = { .now() },
        syncWAL: @escaping @Sendable (WALFile) throws -> Void = { try $0.sync() },
        checkpoints: CheckpointSettings = CheckpointSettings(),
        markSyncs: MarkSyncSchedule = LocalMarks.syncs
    ) -> StoreWorker {
        StoreWorker(
            store: store, initialState: LiveState(state: .connected, updatedAt: 0), eventLoop: loop, logger: logger,
            now: now, syncWAL: syncWAL, checkpoints: checkpoints, markSyncs: markSyncs)
    }

    /// A sync beside the loop that waits until `release` is true, as a disk that stops answering.
    static func sync(after release: ConditionLock<Bool>) -> @Sendable (WALFile) throws -> Void {
        { file in
            release.lock(whenValue: true)
            release.unlock()
            try file.sync()
        }
    }

    /// A sync beside the loop that counts itself in `count`.
    static func sync(counting count: NIOLockedValueBox<Int>) -> @Sendable (WALFile) throws -> Void {
        { file in
            count.withLockedValue { $0 += 1 }
            try file.sync()
        }
    }
}
