import IntrapushStore

/// When the local API's marks are written, on the push loop where every write runs.
///
/// Each person's marks wait in a queue of their own. A slice, run between two turns of pushes,
/// takes each person's marks in turn, up to their share of `idsPerSlice` ids, and commits them
/// in one transaction: one sync for many marks. A large mark (all of them, or
/// many ids) goes in parts, one slice after another. So a neighbour's thousands of marks, or a
/// mark of everything, hold the pushes for one short slice at a time, and another person's mark
/// waits for a slice, not for the neighbour's queue. A mark of everything takes what was there
/// when its first part ran: what arrives meanwhile is not everything the person saw.
///
/// Pure: the shell (`LocalMarks`) runs each slice it is told to and reports how it went.
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
        /// The job failed: its caller gets the slice's error; what earlier slices marked stays.
        case fail(JobID)
    }

    /// Ids one slice marks at most, over every person's parts.
    let idsPerSlice: Int

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
    /// Each person's jobs, oldest first.
    private var queues: [Int64: [JobID]] = [:]
    /// The people with jobs, in the order they are served; the next slice starts at `turn`.
    private var people: [Int64] = []
    private var turn = 0
    private var isSliceScheduled = false
    /// The parts of the slice being committed.
    private var running: [Part]?

    init(idsPerSlice: Int) {
        precondition(idsPerSlice > 0)
        self.idsPerSlice = idsPerSlice
    }

    /// Marks waiting or running.
    var pendingJobs: Int { jobs.count }

    /// A caller asked for a mark.
    mutating func markRequested(_ id: JobID, person: Int64, viewer: Viewer, request: Request) -> [Action] {
        switch request {
        case .ids(let ids): jobs[id] = Job(person: person, viewer: viewer, ids: ids[...], isAll: false)
        case .all: jobs[id] = Job(person: person, viewer: viewer, ids: [], isAll: true)
        }
        if queues[person] == nil { people.append(person) }
        queues[person, default: []].append(id)
        return scheduleIfIdle()
    }

    /// The loop ran the scheduled slice: the parts to commit.
    mutating func sliceDue() -> [Action] {
        isSliceScheduled = false
        guard running == nil, !people.isEmpty else { return [] }
        var parts: [Part] = []
        var budget = idsPerSlice
        let share = max(1, idsPerSlice / people.count)
        var served = 0
        while budget > 0, served < people.count {
            let person = people[(turn + served) % people.count]
            served += 1
            // The person's marks in order, small ones together, up to their share of the slice.
            let allowed = min(budget, share)
            var quota = allowed
            for id in queues[person] ?? [] where quota > 0 {
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
        turn = (turn + served) % people.count
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
            actions.append(.fail(part.job))
        }
        return actions + scheduleIfIdle()
    }

    private mutating func remove(_ id: JobID, of person: Int64) {
        jobs[id] = nil
        queues[person]?.removeAll { $0 == id }
        guard queues[person]?.isEmpty == true, let index = people.firstIndex(of: person) else { return }
        queues[person] = nil
        people.remove(at: index)
        if index < turn { turn -= 1 }
        if turn >= people.count { turn = 0 }
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
