/// The order in which the local API's reads run, on two lanes, each a thread and a connection
/// of its own. Point reads and pages (a notification, a count from the small tables, a page of
/// a list through its index, a subscriber's next rows, a name looked up) run on the quick lane;
/// searches, which read every row, on the scan lane, a piece of ids at a time. So a read never
/// waits behind another person's search, and each lane serves people in turn: a person's next
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
        /// Each person's jobs on the lane, oldest first; the first is running or next.
        var queues: [UInt32: [JobID]] = [:]
        /// The people with jobs, in the order they are served.
        var people: [UInt32] = []
        var turn = 0
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
        let queued = state.queues[person]?.count ?? 0
        guard queued <= maximumWaiting else { throw Busy() }
        if queued == 0 { state.people.append(person) }
        state.queues[person, default: []].append(job)
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
            remove(job, of: person, from: &state)
        }
        if let index = state.people.firstIndex(of: person) {
            // The next person's turn: this one goes on after them.
            state.turn = (index + 1) % state.people.count
        }
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
        remove(job, of: person, from: &state)
        lanes[lane] = state
        return (true, next(on: lane))
    }

    private func remove(_ job: JobID, of person: UInt32, from state: inout LaneState) {
        state.queues[person]?.removeAll { $0 == job }
        guard state.queues[person]?.isEmpty == true, let index = state.people.firstIndex(of: person) else { return }
        state.queues[person] = nil
        state.people.remove(at: index)
        if index < state.turn { state.turn -= 1 }
        if state.turn >= state.people.count { state.turn = 0 }
    }

    private mutating func next(on lane: Lane) -> [Action] {
        var state = lanes[lane]!
        guard state.running == nil, !state.people.isEmpty else { return [] }
        let person = state.people[state.turn]
        guard let job = state.queues[person]?.first else { return [] }
        state.running = job
        lanes[lane] = state
        return [.run(job, lane)]
    }
}
