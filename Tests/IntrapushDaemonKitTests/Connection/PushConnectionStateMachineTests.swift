// SPDX-License-Identifier: Apache-2.0

import IntrapushStore
import Testing

@testable import IntrapushDaemonKit

@Suite("The push connection machine")
struct PushConnectionStateMachineTests {
    typealias Machine = PushConnectionStateMachine

    static func push(_ id: Int) -> Push {
        Push(payload: .text("p\(id)"), messageID: "\(id)", title: nil, body: nil, receivedAt: Int64(id))
    }

    @Test("what one read brought is committed together when the read completes; nothing is acknowledged until the commit succeeded")
    func noAcknowledgementBeforeCommit() {
        var machine = Machine()
        #expect(machine.readCompleted() == [])  // nothing read
        #expect(machine.pushReceived(Self.push(1)) == [])
        #expect(machine.pushReceived(Self.push(2)) == [])
        #expect(machine.readCompleted() == [.startCommit([Self.push(1), Self.push(2)])])
        #expect(machine.pushReceived(Self.push(3)) == [])
        #expect(machine.readCompleted() == [])  // one commit at a time: push 3 goes next
        #expect(machine.commitSucceeded() == [
            .acknowledge([Self.push(1), Self.push(2)]), .tellOutbox([Self.push(1), Self.push(2)]),
            .handToHook([Self.push(1), Self.push(2)]), .startCommit([Self.push(3)]),
        ])
        #expect(machine.commitSucceeded() == [.acknowledge([Self.push(3)]), .tellOutbox([Self.push(3)]), .handToHook([Self.push(3)])])
        #expect(machine.uncommittedCount == 0)
    }

    @Test("a failed commit acknowledges nothing, sends 1011 and closes; later pushes are not taken")
    func failedCommit() {
        var machine = Machine()
        _ = machine.pushReceived(Self.push(1))
        _ = machine.readCompleted()
        _ = machine.pushReceived(Self.push(2))
        #expect(machine.commitFailed("disk full") == [.sendClose(.code(1011)), .closeChannel])
        #expect(machine.closeReason == .storeFailed("disk full"))
        #expect(machine.pushReceived(Self.push(3)) == [])
        #expect(machine.uncommittedCount == 0)
        #expect(machine.channelClosed() == [.reportClosed(.storeFailed("disk full"))])
    }

    @Test("reading pauses above the high mark and resumes below the low one")
    func backpressure() {
        var machine = Machine(pauseReadingAbove: 3, resumeReadingBelow: 2, maximumBatchSize: 2)
        _ = machine.pushReceived(Self.push(1))
        _ = machine.readCompleted()  // in flight
        for id in 2...4 { #expect(machine.pushReceived(Self.push(id)) == []) }
        #expect(machine.pushReceived(Self.push(5)).pauseReading)  // 4 waiting > 3
        #expect(machine.state == .open(isReadingPaused: true))
        #expect(!machine.pushReceived(Self.push(6)).pauseReading)  // paused once
        let first = machine.commitSucceeded()  // 2 of 5 go, 3 wait: not yet below 2
        #expect(first.startCommit?.count == 2 && !first.resumeReading)
        let second = machine.commitSucceeded()
        #expect(second.startCommit?.count == 2 && second.resumeReading)  // 1 waits
        #expect(machine.state == .open(isReadingPaused: false))
    }

    @Test("reading pauses when the waiting pushes' bytes pass the ceiling, however few they are")
    func backpressureByBytes() {
        var machine = Machine(pauseReadingAboveBytes: 1000, resumeReadingBelowBytes: 500, maximumBatchSize: 1)
        func large(_ id: Int) -> Push {
            Push(payload: .text(String(repeating: "x", count: 400)), messageID: "m\(id)", title: nil, body: nil, receivedAt: 0)
        }
        _ = machine.pushReceived(large(1))
        _ = machine.readCompleted()  // in flight
        #expect(!machine.pushReceived(large(2)).pauseReading)
        #expect(!machine.pushReceived(large(3)).pauseReading)  // 800 bytes wait
        #expect(machine.pushReceived(large(4)).pauseReading)  // 1200 > 1000
        #expect(!machine.commitSucceeded().resumeReading)  // 800 wait: not below 500
        #expect(machine.commitSucceeded().resumeReading)  // 400 wait
        #expect(machine.state == .open(isReadingPaused: false))
    }

    @Test("a close request drains: what was taken is committed and acknowledged, then close 1000")
    func closeDrains() {
        var machine = Machine()
        _ = machine.pushReceived(Self.push(1))
        _ = machine.readCompleted()
        _ = machine.pushReceived(Self.push(2))
        #expect(machine.closeRequested(.shuttingDown) == [.scheduleCloseTimeout])
        #expect(machine.state == .draining(isReadingPaused: false))
        #expect(machine.pushReceived(Self.push(3)) == [])  // left to the server's redelivery
        #expect(machine.commitSucceeded() == [.acknowledge([Self.push(1)]), .tellOutbox([Self.push(1)]), .handToHook([Self.push(1)]), .startCommit([Self.push(2)])])
        #expect(machine.commitSucceeded() == [.acknowledge([Self.push(2)]), .tellOutbox([Self.push(2)]), .handToHook([Self.push(2)]), .sendClose(.code(1000))])
        #expect(!machine.mayWriteDataFrames)
        #expect(machine.closeFrameReceived(code: 1000) == [.closeChannel])
        #expect(machine.channelClosed() == [.reportClosed(.shuttingDown)])
        #expect(machine.channelClosed() == [])  // reported once
    }

    @Test("a close request while pushes wait and none commits starts their commit")
    func closeCommitsWhatWaits() {
        var machine = Machine()
        _ = machine.pushReceived(Self.push(1))
        #expect(machine.closeRequested(.shuttingDown) == [.startCommit([Self.push(1)]), .scheduleCloseTimeout])
        #expect(machine.commitSucceeded() == [.acknowledge([Self.push(1)]), .tellOutbox([Self.push(1)]), .handToHook([Self.push(1)]), .sendClose(.code(1000))])
    }

    @Test("an idle connection closes at once when asked; a second request changes nothing")
    func idleClose() {
        var machine = Machine()
        #expect(machine.closeRequested(.reconfigured) == [.sendClose(.code(1000)), .scheduleCloseTimeout])
        #expect(machine.closeRequested(.shuttingDown) == [])
        #expect(machine.closeTimeoutFired() == [.closeChannel])
        #expect(machine.channelClosed() == [.reportClosed(.reconfigured)])
    }

    @Test("a commit that finishes after our close frame is stored and hooked, never acknowledged")
    func commitAfterCloseFrame() {
        var machine = Machine()
        _ = machine.pushReceived(Self.push(1))
        _ = machine.readCompleted()
        _ = machine.protocolErrorCaught(.messageTooLarge, closeCode: 1009)
        #expect(machine.commitSucceeded() == [.tellOutbox([Self.push(1)]), .handToHook([Self.push(1)])])
        #expect(machine.closeReason == .messageTooLarge)
    }

    @Test("the server's close is echoed with its code, or empty without one, and the channel closed")
    func serverCloses() {
        var machine = Machine()
        #expect(machine.closeFrameReceived(code: 1001) == [.sendClose(.code(1001)), .closeChannel])
        #expect(machine.channelClosed() == [.reportClosed(.closedByServer(code: 1001))])
        var silent = Machine()
        #expect(silent.closeFrameReceived(code: nil) == [.sendClose(.empty), .closeChannel])
    }

    @Test("after the server's close: echoed at once, and what was taken is stored but never acknowledged")
    func serverClosesWithPushesTaken() {
        var machine = Machine()
        _ = machine.pushReceived(Self.push(1))
        #expect(machine.readCompleted() == [.startCommit([Self.push(1)])])
        _ = machine.pushReceived(Self.push(2))
        #expect(machine.closeFrameReceived(code: 1001) == [.sendClose(.code(1001)), .closeChannel],
                "the echo goes at once, without waiting for the commit")
        #expect(machine.commitSucceeded() == [.tellOutbox([Self.push(1)]), .handToHook([Self.push(1)]), .startCommit([Self.push(2)])],
                "no acknowledgement after the server's close")
        #expect(machine.commitSucceeded() == [.tellOutbox([Self.push(2)]), .handToHook([Self.push(2)])])
        #expect(machine.pushReceived(Self.push(3)) == [], "nothing more is taken")
    }

    @Test("the first reason wins: a dead peer after a close request still reads as the request")
    func firstReasonWins() {
        var machine = Machine()
        _ = machine.pushReceived(Self.push(1))
        _ = machine.closeRequested(.shuttingDown)
        #expect(machine.connectionFailed(.deadPeer) == [.closeChannel])
        #expect(machine.connectionFailed(.error("again")) == [])
        #expect(machine.channelClosed() == [.reportClosed(.shuttingDown)])
    }

    @Test("a channel that closes without a word reads as closed by the server")
    func silentEnd() {
        var machine = Machine()
        #expect(machine.channelClosed() == [.reportClosed(.closedByServer(code: nil))])
    }

    @Test("a commit that succeeds after the channel closed is hooked, and what waited is dropped")
    func commitAfterChannelClosed() {
        var machine = Machine()
        _ = machine.pushReceived(Self.push(1))
        _ = machine.readCompleted()
        _ = machine.pushReceived(Self.push(2))
        _ = machine.channelClosed()
        #expect(machine.readCompleted() == [])
        #expect(machine.commitSucceeded() == [.tellOutbox([Self.push(1)]), .handToHook([Self.push(1)])])
        #expect(machine.uncommittedCount == 0)
    }

    #if DEBUG
    @Test("impossible transitions trap in debug builds: a commit result with no batch in flight")
    func commitWithoutBatchTraps() async {
        await #expect(processExitsWith: .failure) {
            var machine = PushConnectionStateMachine()
            _ = machine.commitSucceeded()
        }
    }

    @Test("impossible transitions trap in debug builds: a push or a close frame after the channel closed")
    func frameAfterCloseTraps() async {
        await #expect(processExitsWith: .failure) {
            var machine = PushConnectionStateMachine()
            _ = machine.channelClosed()
            _ = machine.pushReceived(Push(payload: .text("x"), messageID: nil, title: nil, body: nil, receivedAt: 0))
        }
        await #expect(processExitsWith: .failure) {
            var machine = PushConnectionStateMachine()
            _ = machine.channelClosed()
            _ = machine.closeFrameReceived(code: 1000)
        }
    }
    #endif
}

/// Reading a machine's answer by kind, for the tests' checks.
extension [PushConnectionStateMachine.Action] {
    var startCommit: [Push]? {
        for case .startCommit(let batch) in self { return batch }
        return nil
    }
    var acknowledge: [Push]? {
        for case .acknowledge(let batch) in self { return batch }
        return nil
    }
    var pauseReading: Bool { contains(.pauseReading) }
    var resumeReading: Bool { contains(.resumeReading) }
    var closeChannel: Bool { contains(.closeChannel) }
}
