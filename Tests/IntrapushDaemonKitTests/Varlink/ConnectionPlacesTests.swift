// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import IntrapushDaemonKit

/// Places by class and who makes room, and the bytes each person may hold: the policies alone.
@Suite("Places and bytes of the local API's connections")
struct ConnectionPlacesTests {
    typealias Places = ConnectionPlaces<Int>

    @Test("a uid's share per class; the pools of those with fewer rights apart from the total")
    func shares() {
        var places = Places(limits: .init(perUser: [.noRights: 2, .person: 3, .administrator: 5], pools: [.noRights: 2, .person: 10], total: 20))
        let outcome1 = places.opened(1, by: 7, as: .noRights)
        #expect(outcome1 == .admitted(evicting: []))
        let outcome2 = places.opened(2, by: 7, as: .noRights)
        #expect(outcome2 == .admitted(evicting: []))
        let outcome3 = places.opened(3, by: 7, as: .noRights)
        #expect(outcome3 == .refused, "over the uid's share")
        let outcome4 = places.opened(4, by: 8, as: .noRights)
        #expect(outcome4 == .admitted(evicting: [1]), "the pool makes room among its own")
        let outcome5 = places.opened(5, by: 9, as: .person)
        #expect(outcome5 == .admitted(evicting: []), "a person's place is not theirs to take")
    }

    @Test("room is made from the largest holder's oldest idle connection; a busy one is skipped, the next holder's taken")
    func largestHolderGivesWay() {
        var places = Places(limits: .init(perUser: [.person: 10, .administrator: 10], pools: [.person: 10], total: 5))
        for id in 1...3 { _ = places.opened(id, by: 0, as: .administrator) }
        for id in 4...5 { _ = places.opened(id, by: 1000, as: .person) }
        places.callStarted(1)
        let outcome6 = places.opened(6, by: 2000, as: .person)
        #expect(outcome6 == .admitted(evicting: [2]), "root's oldest idle, not its busy one")
        places.callStarted(3)
        let outcome7 = places.opened(7, by: 3000, as: .person)
        #expect(outcome7 == .admitted(evicting: [4]), "root has none idle: the next holder's")
        places.callEnded(1)
        let outcome8 = places.opened(8, by: 4000, as: .person)
        #expect(outcome8 == .admitted(evicting: [1]))
    }

    @Test("bytes per person and for all: one person's long messages leave room for another's")
    func bytes() {
        var budget = ByteBudget()
        let outcome9 = budget.reserve(40, by: 1, userLimit: 50, total: 100)
        #expect(outcome9)
        let outcome10 = budget.reserve(20, by: 1, userLimit: 50, total: 100)
        #expect(!outcome10, "over the person's own")
        let outcome11 = budget.reserve(50, by: 2, userLimit: 50, total: 100)
        #expect(outcome11)
        let outcome12 = budget.reserve(20, by: 3, userLimit: 50, total: 100)
        #expect(!outcome12, "over everyone's")
        budget.release(40, by: 1)
        let outcome13 = budget.reserve(10, by: 3, userLimit: 50, total: 100)
        #expect(outcome13)
        #expect(budget.held(by: 1) == 0 && budget.held == 60)
    }
}
