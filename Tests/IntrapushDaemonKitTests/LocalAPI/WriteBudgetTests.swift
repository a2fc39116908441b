// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import IntrapushDaemonKit

/// What one person may have waiting on the push loop, oneway calls included.
@Suite("The write budget per person")
struct WriteBudgetTests {
    @Test("full at the writes per person, free again when one is done; nobody else is affected")
    func writesPerPerson() {
        var budget = WriteBudget()
        budget.writesPerPerson = 3
        for _ in 1...3 { budget.started(by: 1000, ids: 1) }
        #expect(budget.isFull(for: 1000))
        #expect(!budget.isFull(for: 2000))
        let freed = budget.finished(by: 1000, ids: 1)
        #expect(freed, "back under the bound: their connections go on")
        #expect(!budget.isFull(for: 1000))
        let freedAgain = budget.finished(by: 1000, ids: 1)
        #expect(!freedAgain, "it was not full")
    }

    @Test("a mark of everything fills the budget alone; a mark of many ids counts its ids")
    func idsCount() {
        var budget = WriteBudget()
        budget.idsPerPerson = 100
        budget.started(by: 1000, ids: budget.cost(ofMarking: nil))
        #expect(budget.isFull(for: 1000))
        budget.started(by: 2000, ids: budget.cost(ofMarking: Array(1...60)))
        #expect(!budget.isFull(for: 2000))
        budget.started(by: 2000, ids: budget.cost(ofMarking: Array(1...40)))
        #expect(budget.isFull(for: 2000))
    }
}
