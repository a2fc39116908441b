// SPDX-License-Identifier: Apache-2.0

import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import ServiceLifecycle

/// The reference push server: WebSocket connections at `/connect/{client}/{org}/{token}` (or
/// `/connect/{client}/{org}` with `Authorization: Bearer {token}`) and an
/// HTTP API to queue pushes, read statistics and misbehave on purpose.
///
/// Every channel runs on one event loop, which also owns all server state, so nothing is locked.
/// `run()` serves until graceful shutdown or cancellation; ``shutdown()`` stops it from outside.
package final class DevServer: Service, Sendable {
    /// The address the server actually listens on, with the port the system chose for port 0.
    package let localAddress: ServerAddress
    private let serverChannel: any Channel
    private let hub: NIOLoopBound<Hub>
    private let logger: Logger

    private init(serverChannel: any Channel, hub: NIOLoopBound<Hub>, logger: Logger) throws {
        guard let address = serverChannel.localAddress, let ipAddress = address.ipAddress, let port = address.port
        else { throw DevServerError.notBound }
        self.localAddress = ServerAddress(host: ipAddress, port: port)
        self.serverChannel = serverChannel
        self.hub = hub
        self.logger = logger
    }

    /// Starts listening; the server accepts connections from now on, before `run()` is called.
    package static func bind(
        configuration: DevServerConfiguration,
        logger: Logger = Logger(label: "intrapush-devserver"),
        eventLoop: any EventLoop = MultiThreadedEventLoopGroup.singleton.next()
    ) async throws -> DevServer {
        let hub = try await eventLoop.submit {
            NIOLoopBound(Hub(configuration: configuration, logger: logger, eventLoop: eventLoop), eventLoop: eventLoop)
        }.get()
        let bootstrap = ServerBootstrap(group: eventLoop)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try Self.configure(channel, hub: hub, maximumFrameSize: configuration.maximumFrameSize)
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.bind(
                host: configuration.listenAddress.host, port: configuration.listenAddress.port
            ).get()
        } catch {
            throw DevServerError.cannotListen(on: configuration.listenAddress, error)
        }
        let server = try DevServer(serverChannel: channel, hub: hub, logger: logger)
        logger.info("listening on \(server.localAddress)")
        return server
    }

    /// Serves until graceful shutdown or cancellation, then closes every connection and returns.
    package func run() async throws {
        try await withTaskCancellationOrGracefulShutdownHandler {
            try await serverChannel.closeFuture.get()
        } onCancelOrGracefulShutdown: {
            self.beginShutdown()
        }
    }

    /// Runs until SIGTERM or SIGINT, then closes every connection with 1001 and returns.
    package func runUntilTerminated() async throws {
        let group = ServiceGroup(
            services: [self], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        try await group.run()
    }

    /// Stops listening, closes every connection with 1001 (going away) and waits until done.
    package func shutdown() async {
        beginShutdown()
        try? await serverChannel.closeFuture.get()
    }

    private func beginShutdown() {
        let hub = self.hub
        let serverChannel = self.serverChannel
        serverChannel.eventLoop.execute {
            // Each connection stops sending and waits for what it sent to be acknowledged, then
            // closes; the server's socket closes once they all did.
            let closing = if let wait = hub.value.configuration.shutdownRetryAfter {
                hub.value.closeConnections(code: WebSocketErrorCode(codeNumber: 1012), reason: "retry-after=\(wait)", awaitingReply: false)
            } else {
                hub.value.closeConnections(code: .goingAway, awaitingReply: false)
            }
            closing.closed.whenComplete { _ in serverChannel.close(promise: nil) }
        }
    }

    private static func configure(_ channel: any Channel, hub: NIOLoopBound<Hub>, maximumFrameSize: Int) throws {
        let upgrader = NIOWebSocketServerUpgrader(
            maxFrameSize: maximumFrameSize,
            automaticErrorHandling: true,
            shouldUpgrade: { channel, head in
                let authorization = head.headers.first(name: "Authorization")
                let host = head.headers.first(name: "Intrapush-Host")
                guard case .accept = hub.value.admission(forURI: head.uri, authorization: authorization, host: host) else {
                    return channel.eventLoop.makeSucceededFuture(nil)
                }
                return channel.eventLoop.makeSucceededFuture(HTTPHeaders())
            },
            upgradePipelineHandler: { channel, head in
                channel.eventLoop.makeCompletedFuture {
                    let authorization = head.headers.first(name: "Authorization")
                    let host = head.headers.first(name: "Intrapush-Host")
                    guard case .accept(let route) = hub.value.admission(forURI: head.uri, authorization: authorization, host: host)
                    else {
                        throw DevServerError.notAConnectPath
                    }
                    try channel.pipeline.syncOperations.addHandlers(
                        NIOWebSocketFrameAggregator(
                            minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 1 << 16,
                            maxAccumulatedFrameSize: maximumFrameSize),
                        WebSocketConnectionHandler(hub: hub.value, route: route)
                    )
                }
            }
        )
        try channel.pipeline.syncOperations.configureHTTPServerPipeline(
            withServerUpgrade: (
                upgraders: [upgrader],
                completionHandler: { context in
                    context.pipeline.syncOperations.removeHandler(name: HTTPAPIHandler.name, promise: nil)
                }
            )
        )
        try channel.pipeline.syncOperations.addHandler(HTTPAPIHandler(hub: hub.value), name: HTTPAPIHandler.name)
    }
}
