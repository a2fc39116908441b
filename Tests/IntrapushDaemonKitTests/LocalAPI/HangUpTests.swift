// SPDX-License-Identifier: Apache-2.0

import IntrapushInterface
import IntrapushStore
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import TestSupport
import Testing

@testable import IntrapushDaemonKit

/// A caller that hangs up, on a real Unix socket, through the real Varlink pipeline, its call's
/// read on a real `QueryRunner` over a real file: the read stops (SQLite interrupted), it does
/// not run on for no one.
@Suite("A caller who hangs up, on a real socket")
struct HangUpTests {
    /// Each call runs a read without end until its call ends, and records how it ended.
    final class EndlessReads: VarlinkService, @unchecked Sendable {
        let runner: QueryRunner
        let loop: any EventLoop
        let started = NIOLockedValueBox(0)
        let ended = NIOLockedValueBox<[String]>([])

        init(runner: QueryRunner, loop: any EventLoop) {
            self.runner = runner
            self.loop = loop
        }

        var maximumMessageSize: Int { 1 << 20 }
        func connectionClass(of identity: PeerIdentity) -> ConnectionClass { .person }

        func handle(_ call: VarlinkCall, context: VarlinkCallContext) {
            let (started, ended) = (self.started, self.ended)
            runner.run(for: 1000, until: context) { reader -> Int64 in
                started.withLockedValue { $0 += 1 }
                return try reader.integer("WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT count(*) FROM n")
            }.whenComplete { result in
                let outcome: String
                switch result {
                case .success: outcome = "ran to its end"
                case .failure(is QueryRunner.Cancelled): outcome = "cancelled"
                case .failure(let error): outcome = "failed: \(error)"
                }
                ended.withLockedValue { $0.append(outcome) }
            }
        }

        func refuse(_ call: VarlinkCall, context: VarlinkCallContext) { context.send(.failure(VarlinkError("test.Busy"))) }
        func closed(_ identity: PeerIdentity?, because reason: String) {}
        func caller(of identity: PeerIdentity) -> EventLoopFuture<Caller> {
            loop.makeSucceededFuture(Caller(userID: identity.userID, groupIDs: identity.groupIDs, userName: nil, groupNames: []))
        }
        func mayStart(_ call: VarlinkCall, from identity: PeerIdentity) -> Bool { true }
        func whenWritesHaveRoom(for identity: PeerIdentity, _ body: @escaping () -> Void) { body() }
        func onewayRefused(_ call: VarlinkCall, _ error: VarlinkError, by identity: PeerIdentity?) -> Bool { true }
    }

    @Test("a caller who hangs up mid-read: the read is interrupted where it is")
    func hangUpInterrupts() async throws {
        let directory = try TemporaryDirectory("hang-up")
        _ = try NotificationStore(path: directory.file())
        let socketPath = directory.file("api.sock")
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let runner = QueryRunner(databasePath: directory.file(), eventLoop: loop, maximumWaiting: 4, betweenScanPieces: {})
        let service = EndlessReads(runner: runner, loop: loop)
        let admission = VarlinkAdmission(limits: VarlinkLimits(), eventLoop: loop)
        let connections = VarlinkConnections(eventLoop: loop)
        let server = try await ServerBootstrap(group: loop)
            .childChannelInitializer { VarlinkPipeline.install(on: $0, service: service, admission: admission, connections: connections) }
            .bind(unixDomainSocketPath: socketPath).get()

        // The caller: another event loop's socket, as a client process's would be.
        let clients = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let client = try await ClientBootstrap(group: clients).connect(unixDomainSocketPath: socketPath).get()
        try await client.writeAndFlush(ByteBuffer(string: #"{"method":"test.Endless"}"# + "\u{0}")).get()
        try await eventually("the read to start") { service.started.withLockedValue { $0 } == 1 }
        try await client.close().get()
        try await eventually("the read to end once its caller hung up") { !service.ended.withLockedValue { $0 }.isEmpty }
        #expect(service.ended.withLockedValue { $0 } == ["cancelled"])

        try await server.close().get()
        await runner.shutdown()
        try await clients.shutdownGracefully()
        try await group.shutdownGracefully()
    }
}
