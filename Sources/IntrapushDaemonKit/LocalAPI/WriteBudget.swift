// SPDX-License-Identifier: Apache-2.0

/// How much of the push loop's writing one person may have waiting: their marks and messages
/// the local API has handed over and that are not yet committed, oneway calls included (a
/// oneway call ends at once, but its write is still theirs). Past the bound their connections
/// take no new call until some of it is done: the calls wait in the socket, not in the daemon.
/// Pure; confined to the local API's loop.
struct WriteBudget {
    /// Writes one person may have waiting, and the ids of their marks in them (a mark of all
    /// counts as the whole of it).
    var writesPerPerson = 16
    var idsPerPerson = 4096

    private var waiting: [UInt32: (writes: Int, ids: Int)] = [:]

    /// The cost of a mark of `ids` (nil: all of them) in ids.
    func cost(ofMarking ids: [Int64]?) -> Int {
        ids.map { max(1, $0.count) } ?? idsPerPerson
    }

    /// A write of `person`'s was handed over.
    mutating func started(by person: UInt32, ids: Int = 0) {
        waiting[person, default: (0, 0)].writes += 1
        waiting[person, default: (0, 0)].ids += ids
    }

    /// One of `person`'s writes is done; true when that brought them back under their bound.
    mutating func finished(by person: UInt32, ids: Int = 0) -> Bool {
        guard var entry = waiting[person] else { return false }
        let wasFull = isFull(entry)
        entry.writes -= 1
        entry.ids -= ids
        waiting[person] = entry.writes <= 0 ? nil : entry
        return wasFull && !isFull(entry)
    }

    /// Whether `person` may not start another call now.
    func isFull(for person: UInt32) -> Bool {
        waiting[person].map(isFull) ?? false
    }

    private func isFull(_ entry: (writes: Int, ids: Int)) -> Bool {
        entry.writes >= writesPerPerson || entry.ids >= idsPerPerson
    }
}
