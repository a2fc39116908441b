// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import IntrapushDaemonKit

/// People in turn, each with a queue: the bookkeeping the marks' slices and the query lanes share.
@Suite("People served in turn")
struct RoundRobinTests {
    @Test("the turn passes person by person; a queue of many waits its turn like a queue of one")
    func turns() {
        var people = RoundRobin<Int, Int>()
        for job in 1...5 { people.append(job, of: 1) }
        people.append(10, of: 2)
        people.append(20, of: 3)
        #expect(people.inTurn == [1, 2, 3])
        people.served(1)
        #expect(people.current == 2, "after one of the first's, the second")
        people.served(2)
        #expect(people.current == 3)
        people.served(3)
        #expect(people.current == 1)
        #expect(people.queue(of: 1) == [1, 2, 3, 4, 5])
    }

    @Test("one who has nothing left leaves the turns; the turn stays with the one it was with")
    func leaving() {
        var people = RoundRobin<Int, Int>()
        people.append(1, of: 1)
        people.append(2, of: 2)
        people.append(3, of: 3)
        people.served(1)
        #expect(people.current == 2)
        people.remove(1, of: 1)
        #expect(people.current == 2, "someone before the turn left")
        people.remove(2, of: 2)
        #expect(people.current == 3, "the one whose turn it was left: the next")
        people.remove(3, of: 3)
        #expect(people.isEmpty && people.current == nil)
    }

    @Test("several served at once (a slice): the turn passes past all of them")
    func servedTogether() {
        var people = RoundRobin<Int, Int>()
        for person in 1...4 { people.append(person, of: person) }
        people.served(first: 3)
        #expect(people.inTurn == [4, 1, 2, 3])
    }
}
