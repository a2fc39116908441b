// SPDX-License-Identifier: Apache-2.0

/// The order in which the local API's reads run, on two lanes, each a thread and a connection
/// of its own. Index lookups and bounded walks (a notification, a count from the indexes, a
/// subscriber's next rows, the first piece of a page) run on the quick lane; searches and
/// whatever else walks many rows (a filter no index serves), on the scan lane, a piece of ids at
/// a time. So a read never waits behind another person's scan, and each lane serves people in turn: a person's next
/// call, or the next piece of their search, waits for one of each other person's, not for all
/// of theirs. A person has one call at a time on each lane, and a few more waiting; past that
/// they are told Busy. Pure; confined to the local API's loop.
struct QuerySchedule {
    typealias JobID = Int

    enum Lane: CaseIterable {
        case quick
        case scan
    }

    enum Action: Equatable {
        /// Run the job's next piece (its only one, on the quick lane) on its lane's thread;
        /// report `pieceFinished`.
        case run(JobID, Lane)
    }

    /// Too many of the person's calls wait already.
    struct Busy: Error {}

    /// Calls of one person waiting on a lane behind the one running.
    let maximumWaiting: Int

    private struct LaneState {
        var running: JobID?
        /// Each person's jobs on the lane, oldest first (the first is running or next), and
        /// whose turn it is.
        var people = RoundRobin<UInt32, JobID>()
    }

    private var lanes: [Lane: LaneState] = [.quick: LaneState(), .scan: LaneState()]
    private var owners: [JobID: (person: UInt32, lane: Lane)] = [:]

    init(maximumWaiting: Int) {
        self.maximumWaiting = maximumWaiting
    }

    /// Jobs waiting or running on `lane`.
    func jobs(on lane: Lane) -> Int { owners.values.filter { $0.lane == lane }.count }

    /// A call of `person`'s asks for a read.
    mutating func submitted(_ job: JobID, by person: UInt32, on lane: Lane) throws(Busy) -> [Action] {
        var state = lanes[lane]!
        guard state.people.queue(of: person).count <= maximumWaiting else { throw Busy() }
        state.people.append(job, of: person)
        owners[job] = (person, lane)
        lanes[lane] = state
        return next(on: lane)
    }

    /// The running piece of `job` ended; `isDone`: the job has no further piece.
    mutating func pieceFinished(_ job: JobID, isDone: Bool) -> [Action] {
        guard let (person, lane) = owners[job] else { return [] }
        var state = lanes[lane]!
        if state.running == job { state.running = nil }
        if isDone {
            owners[job] = nil
            state.people.remove(job, of: person)
        }
        // The next person's turn: this one goes on after them.
        state.people.served(person)
        lanes[lane] = state
        return next(on: lane)
    }

    /// The job's call ended before it did. A job that waits is taken off (`wasWaiting`); one
    /// whose piece runs ends with that piece (`pieceFinished`).
    mutating func cancelled(_ job: JobID) -> (wasWaiting: Bool, actions: [Action]) {
        guard let (person, lane) = owners[job] else { return (false, []) }
        var state = lanes[lane]!
        guard state.running != job else { return (false, []) }
        owners[job] = nil
        state.people.remove(job, of: person)
        lanes[lane] = state
        return (true, next(on: lane))
    }

    private mutating func next(on lane: Lane) -> [Action] {
        var state = lanes[lane]!
        guard state.running == nil, let person = state.people.current, let job = state.people.queue(of: person).first else { return [] }
        state.running = job
        lanes[lane] = state
        return [.run(job, lane)]
    }
}
