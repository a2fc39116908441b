// SPDX-License-Identifier: Apache-2.0

import NIOCore
import Testing

@testable import IntrapushDevServer

/// The ledger keyed per host (protocol §10): one token, many hosts, each acknowledging its own.
@Suite("PushLedger per host")
struct PushLedgerHostTests {
    private func queue(_ ids: [String], host: String? = nil, into ledger: inout PushLedger) {
        for id in ids {
            _ = ledger.queued(payload: ByteBuffer(string: "{\"id\":\"\(id)\"}"), isBinary: false, messageID: id, org: "acme", host: host)
        }
    }

    private func deliverAll(to connection: Int, from ledger: inout PushLedger) -> [String?] {
        var delivered: [String?] = []
        while let push = ledger.nextDelivery(to: connection) {
            delivered.append(push.messageID)
        }
        return delivered
    }

    @Test("a push for the org reaches every host; one host's acknowledgement leaves the other's copy waiting")
    func orgPushReachesEveryHost() {
        var ledger = PushLedger()
        ledger.connectionOpened(1, org: "acme", host: "a")
        ledger.connectionOpened(2, org: "acme", host: "b")
        queue(["m1", "m2"], into: &ledger)
        #expect(Set(ledger.deliveryTargets(of: "acme")) == [1, 2])
        #expect(deliverAll(to: 1, from: &ledger) == ["m1", "m2"])
        #expect(deliverAll(to: 2, from: &ledger) == ["m1", "m2"])

        _ = ledger.acknowledgementReceived(on: 1, messageID: nil)
        _ = ledger.acknowledgementReceived(on: 1, messageID: nil)
        #expect(ledger.unacknowledgedCount == 2)
        // Host b goes away without acknowledging: its copies come back to it, and to it alone.
        _ = ledger.connectionClosed(2)
        ledger.connectionOpened(3, org: "acme", host: "b")
        #expect(deliverAll(to: 3, from: &ledger) == ["m1", "m2"])
        ledger.connectionOpened(4, org: "acme", host: "a")  // replaces 1, which acknowledged everything
        #expect(deliverAll(to: 4, from: &ledger).isEmpty)
        #expect(ledger.hostStatistics[HostKey(org: "acme", host: "a")]?.acknowledged == 2)
        #expect(ledger.hostStatistics[HostKey(org: "acme", host: "b")]?.unacknowledged == 2)
    }

    @Test("a host that connects for the first time later gets the org's retained pushes, within the limit")
    func lateHostGetsRetainedPushes() {
        var ledger = PushLedger(retainedLimit: 2)
        ledger.connectionOpened(1, org: "acme", host: "a")
        queue(["m1", "m2", "m3"], into: &ledger)
        ledger.connectionOpened(2, org: "acme", host: "late")
        #expect(deliverAll(to: 2, from: &ledger) == ["m2", "m3"])
        #expect(deliverAll(to: 1, from: &ledger) == ["m1", "m2", "m3"])
        #expect(ledger.unacknowledgedCount == 5)
    }

    @Test("clients without an identity that connect late get only what no host took: as a server of protocol 1.1 gave them")
    func lateUnnamedHostGetsOnlyUnclaimed() {
        var ledger = PushLedger()
        ledger.connectionOpened(1, org: "acme", host: "a")
        queue(["taken-by-a"], into: &ledger)
        ledger.connectionOpened(2, org: "acme")
        #expect(deliverAll(to: 2, from: &ledger).isEmpty)
        queue(["after"], into: &ledger)
        #expect(deliverAll(to: 2, from: &ledger) == ["after"])

        var fresh = PushLedger()
        queue(["before-anyone"], into: &fresh)
        fresh.connectionOpened(1, org: "acme")
        #expect(deliverAll(to: 1, from: &fresh) == ["before-anyone"])
        #expect(fresh.unacknowledgedCount == 1)
    }

    @Test("pushes queued before any host connected wait for the first and count as unacknowledged once")
    func pushesBeforeAnyHost() {
        var ledger = PushLedger(retainedLimit: 2)
        queue(["m1", "m2", "m3"], into: &ledger)
        #expect(ledger.unacknowledgedCount == 2)  // m1 fell out of what is kept
        ledger.connectionOpened(1, org: "acme", host: "a")
        #expect(ledger.unacknowledgedCount == 2)
        ledger.connectionOpened(2, org: "acme", host: "b")
        #expect(ledger.unacknowledgedCount == 4)
        #expect(deliverAll(to: 1, from: &ledger) == ["m2", "m3"])
    }

    @Test("a push for one host reaches that host alone, also when it connects after the push")
    func hostPushReachesThatHostAlone() {
        var ledger = PushLedger()
        ledger.connectionOpened(1, org: "acme", host: "a")
        queue(["for-b"], host: "b", into: &ledger)
        queue(["all"], into: &ledger)
        #expect(deliverAll(to: 1, from: &ledger) == ["all"])
        ledger.connectionOpened(2, org: "acme", host: "b")
        #expect(deliverAll(to: 2, from: &ledger) == ["for-b", "all"])
        ledger.connectionOpened(3, org: "acme", host: "c")
        #expect(deliverAll(to: 3, from: &ledger) == ["all"])
    }

    @Test("a second connection of a named host replaces the first: its unacknowledged pushes go to the newer, in order")
    func secondConnectionReplacesTheFirst() {
        var ledger = PushLedger()
        queue(["m1", "m2"], into: &ledger)
        #expect(ledger.connectionOpened(1, org: "acme", host: "a") == nil)
        #expect(deliverAll(to: 1, from: &ledger) == ["m1", "m2"])
        _ = ledger.acknowledgementReceived(on: 1, messageID: nil)
        #expect(ledger.connectionOpened(2, org: "acme", host: "a") == 1)
        queue(["m3"], into: &ledger)
        #expect(ledger.nextDelivery(to: 1) == nil)
        // A late acknowledgement on the replaced connection counts for nothing: m2 comes again.
        #expect(ledger.acknowledgementReceived(on: 1, messageID: nil) == .unexpected)
        #expect(deliverAll(to: 2, from: &ledger) == ["m2", "m3"])
        #expect(ledger.connectionClosed(1) == nil)
        #expect(ledger.hostStatistics[HostKey(org: "acme", host: "a")]?.replaced == 1)
        #expect(ledger.unacknowledgedCount == 2)
    }

    @Test("clients without Intrapush-Host are one host of the org: several connections stay open, the newest is sent to")
    func unnamedHostKeepsSeveralConnections() {
        var ledger = PushLedger()
        #expect(ledger.connectionOpened(1, org: "acme") == nil)
        #expect(ledger.connectionOpened(2, org: "acme") == nil)
        ledger.connectionOpened(3, org: "acme", host: "named")
        queue(["m1"], into: &ledger)
        #expect(Set(ledger.deliveryTargets(of: "acme")) == [2, 3])
        #expect(deliverAll(to: 1, from: &ledger).isEmpty)
        #expect(deliverAll(to: 2, from: &ledger) == ["m1"])
        #expect(deliverAll(to: 3, from: &ledger) == ["m1"])
    }
}
