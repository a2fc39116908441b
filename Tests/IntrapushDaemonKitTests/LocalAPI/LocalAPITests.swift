// SPDX-License-Identifier: Apache-2.0

import Foundation
@testable import IntrapushInterface
import IntrapushStore
import IntrapushSupport
import Logging
import NIOCore
import NIOEmbedded
import TestSupport
import Testing

@testable import IntrapushDaemonKit

/// The local API on `EmbeddedChannel`s with callers the test names: its queries run on a real
/// database made by the production store, at once or when the test says; its writes are not
/// reached. What each caller sees, and that a subscription belongs to its call.
@Suite("The local API with fake callers")
struct LocalAPITests {
    /// Reads on the test's thread, on a real database; a failure the test plants comes first.
    final class Queries: LocalAPIQueries {
        let loop: EmbeddedEventLoop
        let reader: NotificationReader
        var failures: [any Error] = []
        var held: [() -> Void] = []
        var isHolding = false

        init(loop: EmbeddedEventLoop, reader: NotificationReader) {
            self.loop = loop
            self.reader = reader
        }

        func run<T: Sendable>(
            for user: UInt32, until call: (any CallLifetime)?, _ work: @escaping @Sendable (NotificationReader) throws -> T
        ) -> EventLoopFuture<T> {
            let promise = loop.makePromise(of: T.self)
            let complete = { [self] in
                if !failures.isEmpty { return promise.fail(failures.removeFirst()) }
                promise.completeWith(Result { try work(reader) })
            }
            if isHolding { held.append(complete) } else { complete() }
            return promise.futureResult
        }

        func scan<T: Sendable>(
            for user: UInt32, until call: (any CallLifetime)?, _ piece: @escaping @Sendable (NotificationReader) throws -> T?
        ) -> EventLoopFuture<T> {
            run(for: user, until: call) { reader in
                while true {
                    if let result = try piece(reader) { return result }
                }
            }
        }

        func release() {
            isHolding = false
            let work = held
            held = []
            for complete in work { complete() }
        }
    }

    /// Names at once: 1001 is alice, anyone else bob.
    final class Names: LocalAPINames {
        let loop: EmbeddedEventLoop
        init(loop: EmbeddedEventLoop) { self.loop = loop }
        func caller(of identity: PeerIdentity) -> EventLoopFuture<Caller> {
            loop.makeSucceededFuture(Caller(
                userID: identity.userID, processID: identity.processID, groupIDs: identity.groupIDs,
                userName: identity.userID == 1001 ? "alice" : "bob", groupNames: []))
        }
        func forget() {}
        func stop() {}
    }

    /// The outbox is not what these tests are about: it refuses to be used.
    final class UnusedOutbox: LocalAPIOutbox {
        let loop: EmbeddedEventLoop
        let settings = OutboxSettings(idField: "id", maximumMessageSize: 1 << 20, timeToLive: nil, requestTimeout: .seconds(30), receipts: nil)
        init(loop: EmbeddedEventLoop) { self.loop = loop }
        struct Unused: Error {}
        func queue(_ submission: OutboxSubmission) -> EventLoopFuture<Result<OutboxCoordinator.QueuedMessage, OutboxRefusal>> {
            loop.makeFailedFuture(Unused())
        }
        func stopAwaiting(row: Int64) {}
        func markRead(ids: [Int64]?, for viewer: Viewer) -> EventLoopFuture<NotificationMarker.Outcome> { loop.makeFailedFuture(Unused()) }
        func wake() {}
    }

    struct ReadFailed: Error {}

    let loop = EmbeddedEventLoop()
    let directory: TemporaryDirectory
    let queries: Queries
    let api: LocalAPI
    let admission: VarlinkAdmission

    init() throws {
        // Three notifications: to alice, to bob, to everyone.
        directory = try TemporaryDirectory("local-api")
        let store = try NotificationStore(path: directory.file())
        func push(_ title: String, to recipients: String?) -> Push {
            var push = Push(payload: .text("{}"), messageID: title, title: title, body: nil, receivedAt: 1)
            push.recipients = recipients
            return push
        }
        _ = try store.store([push("alice", to: "alice"), push("bob", to: "bob"), push("all", to: nil)], liveState: nil)
        queries = Queries(loop: loop, reader: try NotificationReader(path: directory.file()))
        api = Self.api(loop: loop, queries: queries)
        admission = VarlinkAdmission(limits: VarlinkLimits(), eventLoop: loop)
    }

    /// The local API over `queries`, for callers all of whom may read, writing nowhere.
    static func api(loop: EmbeddedEventLoop, queries: any LocalAPIQueries, limits: LocalAPILimits = LocalAPILimits()) -> LocalAPI {
        LocalAPI(
            limits: limits, outbox: UnusedOutbox(loop: loop), queries: queries, names: Names(loop: loop),
            policy: AccessPolicy(everyoneReads: true, readerGroupID: nil, senderGroupID: nil, adminGroupID: nil, daemonUserID: 990),
            eventLoop: loop, liveState: { LiveState(state: .connected, updatedAt: 1) },
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
    }

    func connect(uid: UInt32) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel(loop: loop)
        let identity = PeerIdentity(userID: uid, groupID: uid, processID: 1, groupIDs: [uid])
        try channel.pipeline.syncOperations.addHandlers(VarlinkPipeline.handlers(
            service: api, identity: identity, admission: admission, connections: VarlinkConnections(eventLoop: channel.eventLoop)))
        try channel.connect(to: SocketAddress(unixDomainSocketPath: "/tmp/local-api-test")).wait()
        return channel
    }

    func send(_ channel: EmbeddedChannel, _ calls: String...) throws {
        try channel.writeInbound(ByteBuffer(string: calls.map { $0 + "\u{0}" }.joined()))
    }

    func replies(_ channel: EmbeddedChannel) throws -> [JSONValue] {
        var values: [JSONValue] = []
        while var buffer = try channel.readOutbound(as: ByteBuffer.self) {
            let text = buffer.readString(length: buffer.readableBytes) ?? ""
            values += text.split(separator: "\u{0}").compactMap { JSONValue.parse(String($0)) }
        }
        return values
    }

    @Test("each caller sees what is addressed to them, by the kernel's uid")
    func perCaller() throws {
        let alice = try connect(uid: 1001)
        try send(alice, #"{"method":"io.intrapush.Notifications.List","parameters":{"oldest_first":true}}"#)
        let titles = try replies(alice).first?["parameters"]?["notifications"].map { value -> [String] in
            guard case .array(let list) = value else { return [] }
            return list.compactMap { $0["title"]?.string }
        }
        #expect(titles == ["alice", "all"])
        try send(alice, #"{"method":"io.intrapush.Notifications.Show","parameters":{"id":2}}"#)
        #expect(try replies(alice).first?["error"] == .string("io.intrapush.Notifications.NoSuchNotification"))
    }

    @Test("a failed subscription ends its call and is let go at once; the call after it gets its own reply")
    func failedSubscription() throws {
        let bob = try connect(uid: 1002)
        queries.failures = [ReadFailed()]
        try send(
            bob, #"{"method":"io.intrapush.Notifications.Subscribe","parameters":{"after_id":0},"more":true}"#,
            #"{"method":"io.intrapush.Notifications.Count"}"#)
        let answered = try replies(bob)
        #expect(answered.map { $0["error"]?.string } == ["io.intrapush.Notifications.StoreFailed", nil])
        #expect(answered.last?["parameters"]?["count"] == JSONValue(2), "Count has its own reply")
        #expect(api.subscriptions.count == 0, "the subscription went with its call")
        api.subscriptions.committed()
        #expect(try replies(bob).isEmpty, "no notification is written into whatever call comes next")
    }

    @Test("a subscriber hears its own rows as they are committed, and is let go when its connection closes")
    func subscription() throws {
        let alice = try connect(uid: 1001)
        try send(alice, #"{"method":"io.intrapush.Notifications.Subscribe","parameters":{"after_id":0},"more":true}"#)
        #expect(try replies(alice).compactMap { $0["parameters"]?["notification"]?["title"]?.string } == ["alice", "all"])
        #expect(api.subscriptions.count == 1)
        _ = try alice.finish()
        #expect(api.subscriptions.count == 0)
    }

    @Test("a reply that comes after its call's connection closed goes nowhere")
    func lateReply() throws {
        let alice = try connect(uid: 1001)
        queries.isHolding = true
        try send(alice, #"{"method":"io.intrapush.Notifications.Count"}"#)
        _ = try alice.finish()
        queries.release()
        #expect(try replies(alice).isEmpty)
    }

    @Test("Status is typed: the state's fields, the version, the caller's counts")
    func typedStatus() throws {
        let bob = try connect(uid: 1002)
        try send(bob, #"{"method":"io.intrapush.Daemon.Status"}"#)
        let parameters = try #require(try replies(bob).first?["parameters"])
        let status = try DaemonInterface.Status.Reply(varlink: parameters, at: "", strict: true)
        #expect(status.version == LocalAPIInterfaces.version)
        #expect(status.state.state == .connected && status.notifications == 2 && status.unread == 2)
    }

    @Test("a list without more is bounded: rows past its size ask for more, and with more they come in replies")
    func boundedList() throws {
        let large = try TemporaryDirectory("local-api-large")
        let store = try NotificationStore(path: large.file())
        let body = String(repeating: "x", count: 600 << 10)
        _ = try store.store((1...3).map { Push(payload: .text("{}"), messageID: "big-\($0)", title: "big", body: body, receivedAt: 1) }, liveState: nil)
        // Each row alone is past a list's ceiling: the first is answered all the same.
        var limits = LocalAPILimits()
        limits.largestListBytes = 100 << 10
        let api = Self.api(loop: loop, queries: Queries(loop: loop, reader: try NotificationReader(path: large.file())), limits: limits)
        let channel = EmbeddedChannel(loop: loop)
        try channel.pipeline.syncOperations.addHandlers(VarlinkPipeline.handlers(
            service: api, identity: PeerIdentity(userID: 1001, groupID: 1001, processID: 1, groupIDs: [1001]), admission: admission,
            connections: VarlinkConnections(eventLoop: loop)))
        try channel.connect(to: SocketAddress(unixDomainSocketPath: "/tmp/local-api-test")).wait()
        try send(channel, #"{"method":"io.intrapush.Notifications.List","parameters":{"limit":3}}"#)
        #expect(try replies(channel).first?["error"] == .string("org.varlink.service.ExpectedMore"))
        try send(channel, #"{"method":"io.intrapush.Notifications.List","parameters":{"limit":1}}"#)
        let one = try replies(channel).first?["parameters"]?["notifications"]
        #expect(one.map { if case .array(let rows) = $0 { rows.count } else { 0 } } == 1, "the first row always fits")
        try send(channel, #"{"method":"io.intrapush.Notifications.List","parameters":{"limit":3},"more":true}"#)
        let pages = try replies(channel)
        let rows = pages.compactMap { page -> Int? in
            guard case .array(let rows)? = page["parameters"]?["notifications"] else { return nil }
            return rows.count
        }
        #expect(rows.reduce(0, +) == 3 && pages.count > 1, "\(rows)")
    }

    @Test("a caller who may not send is refused by the Outbox interface's own error")
    func outboxDenied() throws {
        let bob = try connect(uid: 1002)
        try send(bob, #"{"method":"io.intrapush.Outbox.Send","parameters":{"message":"{}"}}"#)
        #expect(try replies(bob).first?["error"] == .string("io.intrapush.Outbox.PermissionDenied"))
    }
}
