// SPDX-License-Identifier: Apache-2.0

/// People served in turn, each with a queue of their own: whoever has work waits for one turn
/// of each other person's, never for all of a neighbour's queue. The bookkeeping of every
/// schedule that shares something between the people on a host (the marks' slices, the query
/// lanes). Pure.
struct RoundRobin<Person: Hashable, Job: Equatable> {
    private var queues: [Person: [Job]] = [:]
    /// The people with jobs, in the order they are served.
    private var order: [Person] = []
    /// Where in `order` the next turn begins.
    private var turn = 0

    var isEmpty: Bool { order.isEmpty }

    /// The person whose turn it is.
    var current: Person? { order.isEmpty ? nil : order[turn] }

    /// Everyone with jobs, once each, from the one whose turn it is.
    var inTurn: [Person] { order.indices.map { order[(turn + $0) % order.count] } }

    /// `person`'s jobs, oldest first.
    func queue(of person: Person) -> [Job] { queues[person] ?? [] }

    /// A job of `person`'s joins the end of their queue (and they the end of the turns, if new).
    mutating func append(_ job: Job, of person: Person) {
        if queues[person] == nil { order.append(person) }
        queues[person, default: []].append(job)
    }

    /// The first `count` people of `inTurn` were served: the turn passes to the one after them.
    mutating func served(first count: Int) {
        guard !order.isEmpty else { return }
        turn = (turn + count) % order.count
    }

    /// `person` was served: the turn passes to the one after them.
    mutating func served(_ person: Person) {
        guard let index = order.firstIndex(of: person) else { return }
        turn = (index + 1) % order.count
    }

    /// The job is done or withdrawn; a person with none left leaves the turns.
    mutating func remove(_ job: Job, of person: Person) {
        queues[person]?.removeAll { $0 == job }
        guard queues[person]?.isEmpty == true, let index = order.firstIndex(of: person) else { return }
        queues[person] = nil
        order.remove(at: index)
        if index < turn { turn -= 1 }
        if turn >= order.count { turn = 0 }
    }
}
