// SPDX-License-Identifier: Apache-2.0

import Foundation
import IntrapushInterface
import IntrapushSupport
import NIOCore
import NIOEmbedded
import Testing

@testable import IntrapushDaemonKit

/// The Varlink server's handlers of a connection (admission, framing, calls) on
/// `EmbeddedChannel`s, with a service whose calls the test answers: each call's own replies,
/// pipelining, reading paused while a call runs, `continues` and `oneway`, places by class,
/// deadlines.
@Suite("The Varlink connection's handlers")
struct VarlinkCallHandlerTests {
    /// A service that keeps each call for the test to answer; `test.Echo` it answers at once.
    final class ScriptedService: VarlinkService {
        var maximumMessageSize = 1 << 20
        var privileged: Set<UInt32> = [0]
        var withoutRights: Set<UInt32> = []
        var calls: [VarlinkCallContext] = []
        var refused: [String] = []
        var closedBecause: [String] = []

        func connectionClass(of identity: PeerIdentity) -> ConnectionClass {
            privileged.contains(identity.userID) ? .administrator : withoutRights.contains(identity.userID) ? .noRights : .person
        }

        func handle(_ call: VarlinkCall, context: VarlinkCallContext) {
            if call.method == "test.Echo" { return context.send(VarlinkReply(parameters: call.parameters)) }
            calls.append(context)
        }

        func refuse(_ call: VarlinkCall, context: VarlinkCallContext) {
            refused.append(call.method)
            context.send(.failure(VarlinkError("test.Busy")))
        }

        func closed(_ identity: PeerIdentity?, because reason: String) { closedBecause.append(reason) }

        /// The people whose writes (`test.Mark`) fill their budget; `budgetFreed` lets them go on.
        var fullBudgets: Set<UInt32> = []
        var waitingForBudget: [UInt32: [() -> Void]] = [:]
        func mayStart(_ call: VarlinkCall, from identity: PeerIdentity) -> Bool {
            call.method != "test.Mark" || !fullBudgets.contains(identity.userID)
        }
        func whenWritesHaveRoom(for identity: PeerIdentity, _ body: @escaping () -> Void) {
            waitingForBudget[identity.userID, default: []].append(body)
        }

        /// The names of the callers, answered when the test says for those in `unnamed`.
        let loop: EmbeddedEventLoop
        var unnamed: Set<UInt32> = []
        var namesAsked: [UInt32: EventLoopPromise<Caller>] = [:]
        init(loop: EmbeddedEventLoop) { self.loop = loop }
        func caller(of identity: PeerIdentity) -> EventLoopFuture<Caller> {
            let caller = Caller(userID: identity.userID, groupIDs: identity.groupIDs, userName: "u\(identity.userID)", groupNames: [])
            guard unnamed.contains(identity.userID) else { return loop.makeSucceededFuture(caller) }
            let promise = loop.makePromise(of: Caller.self)
            namesAsked[identity.userID] = promise
            return promise.futureResult
        }
        func named(_ user: UInt32) {
            namesAsked.removeValue(forKey: user)?.succeed(Caller(userID: user, groupIDs: [user], userName: "u\(user)", groupNames: []))
        }

        var onewayRefusals: [String] = []
        func onewayRefused(_ call: VarlinkCall, _ error: VarlinkError, by identity: PeerIdentity?) -> Bool {
            onewayRefusals.append("\(call.method): \(error.name)")
            return true
        }
        func budgetFreed(for user: UInt32) {
            fullBudgets.remove(user)
            for resume in waitingForBudget.removeValue(forKey: user) ?? [] { resume() }
        }
    }

    /// Counts the `read()` calls that reach the head of the pipeline: reading resumed.
    final class ReadCounter: ChannelOutboundHandler {
        typealias OutboundIn = Any
        var reads = 0
        func read(context: ChannelHandlerContext) {
            reads += 1
            context.read()
        }
    }

    let loop: EmbeddedEventLoop
    let service: ScriptedService
    let admission: VarlinkAdmission
    let connections: VarlinkConnections

    init() {
        loop = EmbeddedEventLoop()
        service = ScriptedService(loop: loop)
        var limits = VarlinkLimits()
        limits.places = .init(perUser: [.noRights: 1, .person: 2, .administrator: 3], pools: [.noRights: 2, .person: 3], total: 4)
        limits.refusalsAnswered = 1
        admission = VarlinkAdmission(limits: limits, eventLoop: loop)
        connections = VarlinkConnections(eventLoop: loop)
    }

    /// A connected channel of `uid`, with a `ReadCounter` before the handler.
    func connect(uid: UInt32 = 1000) throws -> (EmbeddedChannel, ReadCounter) {
        let reads = ReadCounter()
        let channel = EmbeddedChannel(loop: loop)
        let identity = PeerIdentity(userID: uid, groupID: uid, processID: 1, groupIDs: [uid])
        try channel.pipeline.syncOperations.addHandler(reads)
        try channel.pipeline.syncOperations.addHandlers(
            VarlinkPipeline.handlers(service: service, identity: identity, admission: admission, connections: connections))
        try channel.connect(to: SocketAddress(unixDomainSocketPath: "/tmp/varlink-test")).wait()
        return (channel, reads)
    }

    func send(_ channel: EmbeddedChannel, _ messages: String...) throws {
        try channel.writeInbound(ByteBuffer(string: messages.map { $0 + "\u{0}" }.joined()))
    }

    /// Every reply written so far, as their JSON texts.
    func replies(_ channel: EmbeddedChannel) throws -> [String] {
        var texts: [String] = []
        while var buffer = try channel.readOutbound(as: ByteBuffer.self) {
            let text = buffer.readString(length: buffer.readableBytes) ?? ""
            texts += text.split(separator: "\u{0}").map(String.init)
        }
        return texts
    }

    @Test("each call has its own replies: a reply after its call ended is dropped, never taken for the next call's")
    func repliesBelongToTheirCall() throws {
        let (channel, _) = try connect()
        try send(channel, #"{"method":"test.First"}"#, #"{"method":"test.Second"}"#)
        #expect(service.calls.map(\.call.method) == ["test.First"], "the second waits for the first")
        let first = service.calls[0]
        first.send(VarlinkReply(parameters: ["n": JSONValue(1)]))
        #expect(try replies(channel) == [#"{"parameters":{"n":1}}"#])
        #expect(service.calls.map(\.call.method) == ["test.First", "test.Second"])
        first.send(VarlinkReply(parameters: ["late": .bool(true)], continues: true))
        first.send(.failure(VarlinkError("test.Late")))
        #expect(try replies(channel).isEmpty, "the ended call's late replies go nowhere")
        service.calls[1].send(VarlinkReply(parameters: ["n": JSONValue(2)]))
        #expect(try replies(channel) == [#"{"parameters":{"n":2}}"#])
    }

    @Test("continues only where the call asked for more; an error ends a stream; oneway gets nothing back")
    func streamingRules() throws {
        let (channel, _) = try connect()
        try send(channel, #"{"method":"test.One"}"#)
        service.calls[0].send(VarlinkReply(parameters: [:], continues: true))
        #expect(try replies(channel) == [#"{"parameters":{}}"#], "no continues without more: it was the last")
        #expect(!service.calls[0].isActive)

        try send(channel, #"{"method":"test.Stream","more":true}"#)
        let stream = service.calls[1]
        stream.send(VarlinkReply(parameters: [:], continues: true))
        stream.send(VarlinkReply(parameters: [:], continues: true))
        #expect(stream.isActive)
        stream.send(.failure(VarlinkError("test.Failed")))
        #expect(try replies(channel) == [
            #"{"continues":true,"parameters":{}}"#, #"{"continues":true,"parameters":{}}"#, #"{"error":"test.Failed","parameters":{}}"#,
        ])
        #expect(!stream.isActive)

        try send(channel, #"{"method":"test.Quiet","oneway":true}"#, #"{"method":"test.Echo","parameters":{"after":true}}"#)
        service.calls[2].send(VarlinkReply())
        #expect(try replies(channel) == [#"{"parameters":{"after":true}}"#], "the oneway call answered nothing, and the next went on at once")
    }

    @Test("a stop: the call under way is answered, then its connection closes; an idle one closes at once, a new one too")
    func stopFinishesCallsUnderWay() throws {
        let (busy, _) = try connect(uid: 1000)
        let (idle, _) = try connect(uid: 1001)
        try send(busy, #"{"method":"test.Slow"}"#)
        let stopped = connections.finishAndClose()
        #expect(!idle.isActive, "no call under way: closed at once")
        #expect(busy.isActive, "a call under way is finished first")
        try send(busy, #"{"method":"test.Echo","parameters":{"next":true}}"#)
        #expect(service.calls.count == 1, "no new call is taken")
        service.calls[0].send(VarlinkReply(parameters: ["answered": .bool(true)]))
        #expect(try replies(busy) == [#"{"parameters":{"answered":true}}"#], "answered from the data, not with an error")
        #expect(!busy.isActive, "then closed, the pipelined call unread: its caller asks again")
        let (late, _) = try connect(uid: 1002)
        #expect(!late.isActive, "a connection accepted during the stop is closed unanswered")
        var isStopped = false
        stopped.whenSuccess { isStopped = true }
        #expect(isStopped, "the stop completes once every connection has closed")
    }

    @Test("a person over their write budget: their next write waits, whole, nothing more read behind it, until some is done; their reads go on")
    func writeBudgetHoldsOnlyWrites() throws {
        let (first, reads) = try connect(uid: 1000)
        let (second, _) = try connect(uid: 1000)
        service.fullBudgets = [1000]
        try send(first, #"{"method":"test.Mark","oneway":true}"#, #"{"method":"test.Echo","parameters":{"behind":true}}"#)
        #expect(service.calls.isEmpty, "the write is not started")
        let before = reads.reads
        first.read()
        #expect(reads.reads == before, "nothing is read behind the waiting write")
        #expect(try replies(first).isEmpty, "the call behind it waits too")
        try send(second, #"{"method":"test.Echo","parameters":{"n":1}}"#)
        #expect(try replies(second) == [#"{"parameters":{"n":1}}"#], "a read of theirs is answered meanwhile")
        service.budgetFreed(for: 1000)
        #expect(service.calls.map(\.call.method) == ["test.Mark"], "the write starts once they have room")
        #expect(try replies(first) == [#"{"parameters":{"behind":true}}"#], "then what followed it")
    }

    @Test("no call is read before the caller's names are known: pipelined oneway calls all arrive, in order")
    func callsWaitForTheCallersNames() throws {
        service.unnamed = [1000]
        let (channel, reads) = try connect(uid: 1000)
        let before = reads.reads
        channel.read()
        #expect(reads.reads == before, "nothing is read while the names are looked up")
        try send(channel, #"{"method":"test.Mark","oneway":true,"parameters":{"n":1}}"#, #"{"method":"test.Mark","oneway":true,"parameters":{"n":2}}"#)
        #expect(service.calls.isEmpty)
        service.named(1000)
        #expect(service.calls.map { $0.call.parameters["n"] } == [JSONValue(1), JSONValue(2)])
        #expect(service.calls.allSatisfy { $0.connection.caller?.userName == "u1000" })
    }

    @Test("a refused oneway call is told to the log, once per connection")
    func onewayRefusalLogged() throws {
        let (channel, _) = try connect(uid: 1000)
        try send(channel, #"{"method":"test.Mark","oneway":true}"#, #"{"method":"test.Mark","oneway":true}"#)
        service.calls[0].send(.failure(VarlinkError("test.Busy")))
        service.calls[1].send(.failure(VarlinkError("test.Busy")))
        #expect(service.onewayRefusals == ["test.Mark: test.Busy"])
        #expect(try replies(channel).isEmpty, "a oneway call gets nothing back")
    }

    @Test("nothing is read while a call runs; reading resumes once it ended and no call waits")
    func readingPausedDuringCall() throws {
        let (channel, reads) = try connect()
        try send(channel, #"{"method":"test.Slow"}"#)
        let before = reads.reads
        channel.read()
        channel.read()
        #expect(reads.reads == before, "a read asked for while the call runs is held back")
        service.calls[0].send(VarlinkReply())
        #expect(reads.reads == before + 1, "one read, once the call ended")
        channel.read()
        #expect(reads.reads == before + 2)
    }

    @Test("a caller who does not read its replies: no further call is taken, nothing more read, until it does")
    func unreadReplies() throws {
        let (channel, reads) = try connect()
        channel.isWritable = false
        channel.pipeline.fireChannelWritabilityChanged()
        try send(channel, #"{"method":"test.Echo","parameters":{"i":1}}"#, #"{"method":"test.Echo","parameters":{"i":2}}"#)
        let before = reads.reads
        channel.read()
        #expect(try replies(channel).isEmpty, "no call taken while replies wait unread")
        #expect(reads.reads == before, "and nothing more read")
        channel.isWritable = true
        channel.pipeline.fireChannelWritabilityChanged()
        #expect(try replies(channel) == [#"{"parameters":{"i":1}}"#, #"{"parameters":{"i":2}}"#])
        #expect(reads.reads == before + 1)
    }

    @Test("a thousand pipelined calls answered at once are taken in a loop, in order")
    func manyPipelinedCalls() throws {
        let (channel, _) = try connect()
        try channel.writeInbound(ByteBuffer(string: (0..<5000).map { #"{"method":"test.Echo","parameters":{"i":\#($0)}}"# + "\u{0}" }.joined()))
        let answered = try replies(channel)
        #expect(answered.count == 5000)
        #expect(answered.last == #"{"parameters":{"i":4999}}"#)
    }

    @Test("a person over their share is answered Busy by their call's interface and closed; another person and root still get in")
    func connectionsPerUser() throws {
        _ = try (0..<2).map { _ in try connect(uid: 1000).0 }
        let (aliceThird, _) = try connect(uid: 1000)
        try send(aliceThird, #"{"method":"test.Count"}"#)
        #expect(service.refused == ["test.Count"])
        #expect(try replies(aliceThird) == [#"{"error":"test.Busy","parameters":{}}"#])
        #expect(!aliceThird.isActive, "closed once answered")
        #expect(service.calls.isEmpty, "the refused call never reached the service")
        let (bob, _) = try connect(uid: 1001)
        try send(bob, #"{"method":"test.Echo"}"#)
        #expect(try replies(bob) == [#"{"parameters":{}}"#], "bob is not held back by alice's connections")
        let (root, _) = try connect(uid: 0)
        try send(root, #"{"method":"test.Echo"}"#)
        #expect(try replies(root) == [#"{"parameters":{}}"#])
    }

    @Test("a full pool: the newcomer gets a place, and the largest holder loses its oldest idle connection, not one with a call under way")
    func fullPoolMakesRoom() throws {
        let (aliceBusy, _) = try connect(uid: 1000)
        try send(aliceBusy, #"{"method":"test.Slow"}"#)
        let (aliceIdle, _) = try connect(uid: 1000)
        let (bob, _) = try connect(uid: 1001)
        // The people's pool (3) is full: carol comes, alice (2) holds the most.
        let (carol, _) = try connect(uid: 1002)
        #expect(carol.isActive && !aliceIdle.isActive, "alice's idle connection made room")
        #expect(aliceBusy.isActive && bob.isActive)
        try send(carol, #"{"method":"test.Echo","parameters":{"carol":true}}"#)
        #expect(try replies(carol) == [#"{"parameters":{"carol":true}}"#])
        // Nothing idle left to take for another newcomer: dave is refused, told Busy.
        try send(bob, #"{"method":"test.Slow"}"#)
        try send(carol, #"{"method":"test.Slow"}"#)
        let (dave, _) = try connect(uid: 1003)
        try send(dave, #"{"method":"test.Count"}"#)
        #expect(try replies(dave) == [#"{"error":"test.Busy","parameters":{}}"#])
    }

    @Test("callers with no right share a pool of their own: they never take a person's place")
    func noRightsPool() throws {
        service.withoutRights = [2000, 2001, 2002]
        let first = try connect(uid: 2000).0
        let second = try connect(uid: 2001).0
        let (third, _) = try connect(uid: 2002)
        #expect(third.isActive && (!first.isActive || !second.isActive), "their pool of 2 made room among themselves")
        let (alice, _) = try connect(uid: 1000)
        try send(alice, #"{"method":"test.Echo"}"#)
        #expect(try replies(alice) == [#"{"parameters":{}}"#], "a reader is answered")
        #expect(admission.connections(of: 1000, as: .person) == 1)
    }

    @Test("an administrator's connections fill the total: a person's newcomer takes the place of the administrator's oldest idle one")
    func administratorGivesWay() throws {
        let roots = try (0..<3).map { _ in try connect(uid: 0).0 }
        _ = try connect(uid: 1001)
        // The total (4) is full; alice comes.
        let (alice, _) = try connect(uid: 1000)
        #expect(alice.isActive)
        #expect(!roots[0].isActive && roots[1].isActive && roots[2].isActive, "root's oldest idle connection made room")
    }

    @Test("refusals waiting for their call are few: the newest takes the place of the oldest, and is told")
    func refusalsBounded() throws {
        for _ in 0..<2 { _ = try connect(uid: 1000) }
        let (older, _) = try connect(uid: 1000)
        let (newest, _) = try connect(uid: 1000)
        #expect(!older.isActive && newest.isActive, "one refusal at a time here: the older one made room")
        #expect(admission.refusing == 1)
        try send(newest, #"{"method":"test.Count"}"#)
        #expect(try replies(newest) == [#"{"error":"test.Busy","parameters":{}}"#])
        let (silent, _) = try connect(uid: 1000)
        loop.advanceTime(by: admission.limits.refusalDeadline)
        #expect(!silent.isActive, "a refused connection that sends nothing is closed at its deadline")
        #expect(admission.refusing == 0)
    }

    @Test("a message that is not a call, or longer than any may be, closes the connection unanswered")
    func brokenMessages() throws {
        let (junk, _) = try connect()
        try send(junk, #"{"method": "io.intrapush.Daemon.Status""#)
        #expect(try replies(junk).isEmpty && !junk.isActive)
        let (long, _) = try connect()
        service.maximumMessageSize = 1024
        try long.writeInbound(ByteBuffer(repeating: UInt8(ascii: "x"), count: (1 << 20) + 1))
        #expect(!long.isActive)
        #expect(service.closedBecause.count == 2)
        #expect(admission.bufferedBytes == 0, "what the closed connections buffered is given back")
    }

    @Test("a connection with no call is closed at the idle deadline; one whose call runs is not")
    func idleDeadline() throws {
        let (idle, _) = try connect()
        let (busy, _) = try connect(uid: 1001)
        try send(busy, #"{"method":"test.Subscribe","more":true}"#)
        loop.advanceTime(by: admission.limits.idleDeadline)
        #expect(!idle.isActive)
        #expect(busy.isActive)
        let subscription = service.calls[0]
        var ended = false
        subscription.onEnd { ended = true }
        _ = try busy.finish()
        #expect(ended && !subscription.isActive, "a call ends with its connection, and says so to whoever holds it")
    }
}
