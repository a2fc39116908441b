// SPDX-License-Identifier: Apache-2.0

import NIOCore
import Testing

@testable import IntrapushDevServer

@Suite("Push ledger")
struct PushLedgerTests {
    private func payload(_ text: String) -> ByteBuffer {
        ByteBuffer(string: text)
    }

    /// Queues pushes with ids `m<n>`, returning their sequence numbers.
    private func queue(_ ids: [String], org: String = "acme", into ledger: inout PushLedger) -> [Int] {
        ids.map { ledger.queued(payload: payload("{\"id\":\"\($0)\"}"), isBinary: false, messageID: $0, org: org) }
    }

    private func deliverAll(to connection: Int, from ledger: inout PushLedger) -> [String?] {
        var delivered: [String?] = []
        while let push = ledger.nextDelivery(to: connection) {
            delivered.append(push.messageID)
        }
        return delivered
    }

    @Test("the k-th acknowledgement on a connection acknowledges the k-th push sent on it")
    func acknowledgementsMatchInOrder() {
        var ledger = PushLedger()
        _ = queue(["m1", "m2", "m3"], into: &ledger)
        ledger.connectionOpened(1, org: "acme")
        #expect(deliverAll(to: 1, from: &ledger) == ["m1", "m2", "m3"])

        #expect(ledger.acknowledgementReceived(on: 1, messageID: nil).messageID == "m1")
        #expect(ledger.acknowledgementReceived(on: 1, messageID: "m2").messageID == "m2")
        #expect(ledger.acknowledged == 2)
        #expect(ledger.unacknowledgedCount == 1)
        #expect(ledger.unacknowledgedCount(on: 1) == 1)
    }

    @Test("an acknowledgement naming another id still acknowledges its push but is reported")
    func mismatchedIdentifierIsReported() {
        var ledger = PushLedger()
        _ = queue(["m1", "m2"], into: &ledger)
        ledger.connectionOpened(1, org: "acme")
        _ = deliverAll(to: 1, from: &ledger)

        let outcome = ledger.acknowledgementReceived(on: 1, messageID: "m2")
        guard case .mismatched(let push, let receivedID) = outcome else {
            Issue.record("expected a mismatch, got \(outcome)")
            return
        }
        #expect(push.messageID == "m1")
        #expect(receivedID == "m2")
        #expect(ledger.unacknowledgedCount == 1)
    }

    @Test("an empty id acknowledges a push without id; an acknowledgement with nothing sent is unexpected")
    func emptyIdentifierAndUnexpectedAcknowledgement() {
        var ledger = PushLedger()
        _ = ledger.queued(payload: payload("plain text"), isBinary: false, messageID: nil, org: "acme")
        ledger.connectionOpened(1, org: "acme")
        _ = deliverAll(to: 1, from: &ledger)

        #expect(ledger.acknowledgementReceived(on: 1, messageID: "").isMatched)
        #expect(ledger.acknowledgementReceived(on: 1, messageID: nil) == .unexpected)
        #expect(ledger.acknowledged == 1)
    }

    @Test("what a closed connection did not acknowledge is delivered again, in original order, before new pushes")
    func redeliveryAfterClose() {
        var ledger = PushLedger()
        _ = queue(["m1", "m2", "m3"], into: &ledger)
        ledger.connectionOpened(1, org: "acme")
        _ = deliverAll(to: 1, from: &ledger)
        _ = ledger.acknowledgementReceived(on: 1, messageID: nil)
        _ = queue(["m4"], into: &ledger)

        #expect(ledger.connectionClosed(1) == nil)
        ledger.connectionOpened(2, org: "acme")
        #expect(deliverAll(to: 2, from: &ledger) == ["m2", "m3", "m4"])
        #expect(ledger.deliveries == 6)
        #expect(ledger.unacknowledgedCount == 3)
    }

    @Test("only the newest connection of an org's unnamed host is sent deliveries; the older one's leftovers go to it in order")
    func newestConnectionReceives() {
        var ledger = PushLedger()
        _ = queue(["m1", "m2"], into: &ledger)
        ledger.connectionOpened(1, org: "acme")
        #expect(ledger.nextDelivery(to: 1)?.messageID == "m1")
        ledger.connectionOpened(2, org: "acme")

        #expect(ledger.nextDelivery(to: 1) == nil)
        #expect(ledger.deliveryTargets(of: "acme") == [2])
        #expect(deliverAll(to: 2, from: &ledger) == ["m2"])
        _ = queue(["m3"], into: &ledger)

        // m1 was sent on connection 1 only; it returns ahead of m3, by sequence number.
        #expect(ledger.connectionClosed(1) == 2)
        #expect(deliverAll(to: 2, from: &ledger) == ["m1", "m3"])
        // Connection 2 acknowledges in the order it was sent: m2, m1, m3.
        #expect(ledger.acknowledgementReceived(on: 2, messageID: "m2").isMatched)
        #expect(ledger.acknowledgementReceived(on: 2, messageID: "m1").isMatched)
    }

    @Test("a connection's unacknowledged pushes, sent out of sequence order, come back sorted")
    func interleavedRedeliveryIsSorted() {
        var ledger = PushLedger()
        _ = queue(["m1", "m2"], into: &ledger)
        ledger.connectionOpened(1, org: "acme")
        _ = ledger.nextDelivery(to: 1)  // m1 on connection 1
        ledger.connectionOpened(2, org: "acme")
        _ = ledger.nextDelivery(to: 2)  // m2 on connection 2
        _ = ledger.connectionClosed(1)
        #expect(ledger.nextDelivery(to: 2)?.messageID == "m1")  // connection 2 now holds m2, m1

        _ = ledger.connectionClosed(2)
        ledger.connectionOpened(3, org: "acme")
        #expect(deliverAll(to: 3, from: &ledger) == ["m1", "m2"])
    }

    @Test("closing with 1009 drops the largest unacknowledged push of that connection only")
    func messageTooLargeDropsLargest() {
        var ledger = PushLedger()
        _ = ledger.queued(payload: payload("small"), isBinary: false, messageID: "small", org: "acme")
        _ = ledger.queued(payload: payload(String(repeating: "x", count: 5000)), isBinary: false, messageID: "big", org: "acme")
        _ = ledger.queued(payload: payload("tiny"), isBinary: true, messageID: nil, org: "acme")
        ledger.connectionOpened(1, org: "acme")
        _ = deliverAll(to: 1, from: &ledger)

        #expect(ledger.droppedLargestUnacknowledged(on: 1)?.messageID == "big")
        _ = ledger.connectionClosed(1)
        ledger.connectionOpened(2, org: "acme")
        #expect(deliverAll(to: 2, from: &ledger) == ["small", nil])
        #expect(ledger.droppedTooLarge == 1)
        #expect(ledger.unacknowledgedCount == 2)
    }

    @Test("each org has its own queue")
    func orgsAreSeparate() {
        var ledger = PushLedger()
        _ = queue(["a1", "a2"], org: "acme", into: &ledger)
        _ = queue(["b1"], org: "beta", into: &ledger)
        ledger.connectionOpened(1, org: "beta")
        #expect(ledger.deliveryTargets(of: "acme").isEmpty)
        #expect(deliverAll(to: 1, from: &ledger) == ["b1"])
        ledger.connectionOpened(2, org: "acme")
        #expect(deliverAll(to: 2, from: &ledger) == ["a1", "a2"])
        #expect(ledger.pushesQueued == 3)
    }
}

extension PushLedger.Acknowledgement {
    fileprivate var isMatched: Bool {
        if case .matched = self { true } else { false }
    }

    fileprivate var messageID: String? {
        switch self {
        case .matched(let push), .mismatched(let push, _): push.messageID
        case .unexpected: nil
        }
    }
}
