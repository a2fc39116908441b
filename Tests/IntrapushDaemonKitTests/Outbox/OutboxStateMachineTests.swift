// SPDX-License-Identifier: Apache-2.0

import IntrapushStore
import Testing

@testable import IntrapushDaemonKit

@Suite("Outbox machine: window, order, acknowledgements, replies, reconnects")
struct OutboxStateMachineTests {
    func entry(_ row: Int64, kind: OutboxKind = .message) -> OutboxEntry {
        OutboxEntry(rowID: row, messageID: "m\(row)", kind: kind, text: "{}", expiresAt: nil)
    }

    @Test("at most outbox_window unacknowledged; an acknowledgement makes room for the next row")
    func window() {
        var machine = OutboxStateMachine()
        let opened = machine.connectionOpened(window: 2, acknowledges: true)
        #expect(opened.load?.after == 0 && opened.load?.limit == 2)
        let loaded = machine.rowsLoaded([entry(1), entry(2)], limit: 2, generation: machine.generation)
        #expect(loaded.send.map(\.rowID) == [1, 2])
        #expect(loaded.recordSent == [1, 2])
        #expect(loaded.load == nil, "the window is full")
        #expect(machine.messagesQueued().load == nil, "no room: nothing is read")
        #expect(machine.isAcknowledgement("m1"))
        let acked = machine.acknowledgementReceived("m1")
        #expect(acked.recordDelivered == [1])
        #expect(acked.load?.after == 2 && acked.load?.limit == 1, "reads on after the last row, one slot free")
        #expect(!machine.isAcknowledgement("m9"), "an id not in flight is a push")
        #expect(machine.acknowledgementReceived("m9") == [])
    }

    @Test("after a reconnect everything unacknowledged is read again from the first row; a late load is dropped")
    func reconnect() {
        var machine = OutboxStateMachine()
        _ = machine.connectionOpened(window: 4, acknowledges: true)
        let stale = machine.generation
        #expect(machine.connectionClosed() == [])
        let reopened = machine.connectionOpened(window: 4, acknowledges: true)
        #expect(reopened.load?.after == 0)
        #expect(machine.rowsLoaded([entry(1)], limit: 4, generation: stale) == [])
        #expect(machine.rowsLoaded([entry(1)], limit: 4, generation: machine.generation).send.map(\.rowID) == [1])
    }

    @Test("a message queued while a load runs is read by another load")
    func queuedDuringLoad() {
        var machine = OutboxStateMachine()
        _ = machine.connectionOpened(window: 8, acknowledges: true)
        #expect(machine.messagesQueued().load == nil, "one load at a time")
        let loaded = machine.rowsLoaded([], limit: 8, generation: machine.generation)
        #expect(loaded.load?.after == 0, "the queued one may have missed the first load")
    }

    @Test("without upstream acknowledgements a message is delivered once written")
    func withoutAcknowledgements() {
        var machine = OutboxStateMachine()
        _ = machine.connectionOpened(window: 2, acknowledges: false)
        let loaded = machine.rowsLoaded([entry(1), entry(2)], limit: 2, generation: machine.generation)
        #expect(loaded.recordDelivered == [1, 2])
        #expect(loaded.recordSent.isEmpty)
        #expect(machine.inFlightCount == 0)
        #expect(loaded.load != nil, "a full batch may have more behind it")
    }

    @Test("a request waits for its reply; a redelivered reply is still one; expiry ends the wait")
    func replies() {
        var machine = OutboxStateMachine(awaiting: [AwaitedReply(messageID: "old", rowID: 7)])
        #expect(machine.requestAnswered(by: "old") == 7, "requests from before a restart still wait")
        _ = machine.connectionOpened(window: 4, acknowledges: true)
        _ = machine.rowsLoaded([entry(1, kind: .request), entry(2)], limit: 4, generation: machine.generation)
        #expect(machine.requestAnswered(by: "m1") == 1)
        #expect(machine.requestAnswered(by: "m2") == nil, "a message is not a request")
        _ = machine.replyCommitted(requestID: "m1")
        #expect(machine.inFlightCount == 1, "the reply acknowledged the request")
        #expect(machine.requestAnswered(by: "m1") == 1, "a reply delivered again is still a reply")
        _ = machine.rowsExpired([AwaitedReply(messageID: "m2", rowID: 2), AwaitedReply(messageID: "old", rowID: 7)])
        #expect(machine.requestAnswered(by: "old") == nil)
        #expect(machine.inFlightCount == 0)
        #expect(machine.isAcknowledgement("m2"), "a late acknowledgement of an expired message is not a push")
    }
}

/// Reading the machine's answer by kind, for the tests' checks.
extension [OutboxStateMachine.Action] {
    var load: OutboxStateMachine.Load? {
        for case .load(let load) in self { return load }
        return nil
    }
    var send: [OutboxEntry] {
        var entries: [OutboxEntry] = []
        for case .send(let sent) in self { entries += sent }
        return entries
    }
    var recordSent: [Int64] {
        var rows: [Int64] = []
        for case .recordSent(let sent) in self { rows += sent }
        return rows
    }
    var recordDelivered: [Int64] {
        var rows: [Int64] = []
        for case .recordDelivered(let delivered) in self { rows += delivered }
        return rows
    }
}
