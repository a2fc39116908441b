// SPDX-License-Identifier: Apache-2.0

import IntrapushStore

/// When the local API's marks are written, on the push loop where every write runs.
///
/// Each person's marks wait in a queue of their own. A slice, run between two turns of pushes,
/// takes each person's marks in turn (`RoundRobin`), up to their share of the rows the slice
/// may examine, and commits them in one transaction. A large mark (all of them, or many ids)
/// goes in parts, one slice after another: an id named is one row examined, a part of a mark
/// of all examines the next rows by id, unread or not, so a mark of all over rows read long ago
/// holds the loop no longer than one over unread ones. So a neighbour's thousands of marks, or
/// a mark of everything, hold the pushes for one short slice at a time, and another person's
/// mark waits for a slice, not for the neighbour's queue. A mark of everything takes what was
/// there when its first part ran: what arrives meanwhile is not everything the person saw.
///
/// Slices follow one another as soon as each is committed: a slice need not be durable for the
/// next to begin (the shell answers a mark once the slice that ended it is durable).
///
/// Pure: the shell (`LocalMarks`) runs each slice it is told to, with the rows it may examine,
/// and reports how it went.
struct MarkSchedule {
    typealias JobID = Int

    /// What a caller asked to mark.
    enum Request: Equatable, Sendable {
        case ids([Int64])
        case all
    }

    /// One part of a job, in a slice.
    struct Part: Equatable, Sendable {
        var job: JobID
        var viewer: Viewer
        var work: MarkPart.Work
    }

    enum Action: Equatable {
        /// Run a slice after what waits on the loop (pushes first): report `sliceDue`.
        case scheduleSlice
        /// Commit these parts in one transaction; report `sliceCommitted` or `sliceFailed`.
        case commit([Part])
        /// The job is done: its caller gets this outcome.
        case complete(JobID, NotificationMarker.Outcome)
        /// The job failed: its caller gets the slice's error; what earlier slices marked stays,
        /// and is told (`keptSoFar`).
        case fail(JobID, keptSoFar: NotificationMarker.Outcome)
    }

    private struct Job {
        var person: Int64
        var viewer: Viewer
        /// The ids still to mark, for `.ids`.
        var ids: ArraySlice<Int64>
        var isAll: Bool
        /// `.all`: the last id examined, and the newest id the mark covers (set by its first part).
        var after: Int64 = 0
        var upTo: Int64?
        var outcome = NotificationMarker.Outcome()
    }

    private var jobs: [JobID: Job] = [:]
    /// Each person's jobs, oldest first, and whose turn it is.
    private var people = RoundRobin<Int64, JobID>()
    private var isSliceScheduled = false
    /// The parts of the slice being committed.
    private var running: [Part]?

    init() {}

    /// Marks waiting or running.
    var pendingJobs: Int { jobs.count }

    /// A caller asked for a mark.
    mutating func markRequested(_ id: JobID, person: Int64, viewer: Viewer, request: Request) -> [Action] {
        switch request {
        case .ids(let ids): jobs[id] = Job(person: person, viewer: viewer, ids: ids[...], isAll: false)
        case .all: jobs[id] = Job(person: person, viewer: viewer, ids: [], isAll: true)
        }
        people.append(id, of: person)
        return scheduleIfIdle()
    }

    /// The loop ran the scheduled slice: the parts to commit, examining at most `rows` rows.
    mutating func sliceDue(rows: Int) -> [Action] {
        precondition(rows > 0)
        isSliceScheduled = false
        guard running == nil, !people.isEmpty else { return [] }
        var parts: [Part] = []
        var budget = rows
        let order = people.inTurn
        let share = max(1, rows / order.count)
        var served = 0
        while budget > 0, served < order.count {
            let person = order[served]
            served += 1
            // The person's marks in order, small ones together, up to their share of the slice.
            let allowed = min(budget, share)
            var quota = allowed
            for id in people.queue(of: person) where quota > 0 {
                guard let job = jobs[id] else { continue }
                if job.isAll {
                    parts.append(Part(job: id, viewer: job.viewer, work: .unread(after: job.after, upTo: job.upTo, limit: quota)))
                    quota = 0
                } else {
                    let taken = min(quota, job.ids.count)
                    parts.append(Part(job: id, viewer: job.viewer, work: .ids(Array(job.ids.prefix(taken)))))
                    quota -= taken
                    if taken < job.ids.count { break }
                }
            }
            budget -= allowed - quota
        }
        people.served(first: served)
        running = parts
        return [.commit(parts)]
    }

    /// The slice's transaction committed; `results` in the order of its parts.
    mutating func sliceCommitted(_ results: [MarkPart.Result]) -> [Action] {
        guard let parts = running, parts.count == results.count else { return [] }
        running = nil
        var actions: [Action] = []
        for (part, result) in zip(parts, results) {
            guard var job = jobs[part.job] else { continue }
            job.outcome.add(result.outcome)
            let isDone: Bool
            switch part.work {
            case .ids(let ids):
                job.ids = job.ids.dropFirst(ids.count)
                isDone = job.ids.isEmpty
            case .unread:
                job.after = result.lastID
                job.upTo = result.upTo
                isDone = result.isExhausted
            }
            if isDone {
                remove(part.job, of: job.person)
                actions.append(.complete(part.job, job.outcome))
            } else {
                jobs[part.job] = job
            }
        }
        return actions + scheduleIfIdle()
    }

    /// The slice's transaction failed and was rolled back: its jobs fail.
    mutating func sliceFailed() -> [Action] {
        guard let parts = running else { return [] }
        running = nil
        var actions: [Action] = []
        for part in parts {
            guard let job = jobs[part.job] else { continue }
            remove(part.job, of: job.person)
            actions.append(.fail(part.job, keptSoFar: job.outcome))
        }
        return actions + scheduleIfIdle()
    }

    private mutating func remove(_ id: JobID, of person: Int64) {
        jobs[id] = nil
        people.remove(id, of: person)
    }

    private mutating func scheduleIfIdle() -> [Action] {
        guard !isSliceScheduled, running == nil, !jobs.isEmpty else { return [] }
        isSliceScheduled = true
        return [.scheduleSlice]
    }
}

extension NotificationMarker.Outcome {
    /// The counts of a later part of the same mark added in.
    mutating func add(_ other: Self) {
        marked += other.marked
        alreadyRead += other.alreadyRead
        missing += other.missing
        receipts += other.receipts
    }
}
