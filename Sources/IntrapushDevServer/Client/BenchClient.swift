// SPDX-License-Identifier: Apache-2.0

import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import ServiceLifecycle

/// A WebSocket client that acknowledges every push at once and stores nothing: the load
/// generator's speed on its own, without a daemon's database behind it.
///
/// `run()` connects to `path`, acknowledges until the server closes the connection, and on
/// graceful shutdown or cancellation closes it with 1000.
package struct BenchClient: Service, Sendable {
    package var server: ServerAddress
    /// The request path, usually `/connect/{client}/{org}/{token}` with percent-encoded segments.
    package var path: String
    /// The text of every acknowledgement.
    package var acknowledgementText: String
    /// Sent as `Intrapush-Host`; `nil`: none, as a client of protocol 1.1.
    package var hostIdentity: String?
    /// Told of every push as it is read, on the connection's loop.
    package var onPush: (@Sendable (ByteBuffer) -> Void)?
    let eventLoopGroup: any EventLoopGroup

    /// How long the server may take to answer our close frame.
    private static let closeReplyTimeout = TimeAmount.seconds(2)

    package init(
        server: ServerAddress, path: String, acknowledgementText: String = "received message",
        hostIdentity: String? = nil, onPush: (@Sendable (ByteBuffer) -> Void)? = nil,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) {
        self.server = server
        self.path = path
        self.acknowledgementText = acknowledgementText
        self.hostIdentity = hostIdentity
        self.onPush = onPush
        self.eventLoopGroup = eventLoopGroup
    }

    /// The connect path for `org` and `token` of a client named `client`, segments percent-encoded.
    package static func connectPath(client: String = "bench", org: String, token: String) -> String {
        "/connect/" + [client, org, token].map(DevServerClient.percentEncoded).joined(separator: "/")
    }

    package func run() async throws {
        let channel = try await connect()
        try await withTaskCancellationOrGracefulShutdownHandler {
            try await channel.closeFuture.get()
        } onCancelOrGracefulShutdown: {
            channel.pipeline.fireUserInboundEventTriggered(BenchClientHandler.CloseRequested())
            channel.eventLoop.scheduleTask(in: Self.closeReplyTimeout) {
                channel.close(promise: nil)
            }
        }
    }

    /// Runs until the server closes the connection, or until SIGTERM or SIGINT closes it with 1000.
    package func runUntilTerminated() async throws {
        let group = ServiceGroup(
            services: [self], gracefulShutdownSignals: [.sigterm, .sigint],
            logger: Logger(label: "intrapush-devserver.bench-client"))
        try await group.run()
    }

    /// Opens the WebSocket; throws when the server refuses the upgrade.
    package func connect() async throws -> any Channel {
        let server = self.server
        let path = self.path
        let acknowledgementText = self.acknowledgementText
        let hostIdentity = self.hostIdentity
        let onPush = self.onPush
        let upgrade: EventLoopFuture<(any Channel)?> = try await ClientBootstrap(group: eventLoopGroup)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connect(host: server.host, port: server.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let upgrader = NIOTypedWebSocketClientUpgrader<(any Channel)?>(
                        maxFrameSize: 1 << 24,
                        upgradePipelineHandler: { channel, _ in
                            channel.eventLoop.makeCompletedFuture {
                                try channel.pipeline.syncOperations.addHandler(
                                    BenchClientHandler(acknowledgementText: acknowledgementText, onPush: onPush))
                                return channel
                            }
                        }
                    )
                    var headers = HTTPHeaders()
                    headers.add(name: "Host", value: server.description)
                    if let hostIdentity { headers.add(name: "Intrapush-Host", value: hostIdentity) }
                    let configuration = NIOTypedHTTPClientUpgradeConfiguration(
                        upgradeRequestHead: HTTPRequestHead(version: .http1_1, method: .GET, uri: path, headers: headers),
                        upgraders: [upgrader],
                        notUpgradingCompletionHandler: { channel in
                            channel.close(promise: nil)
                            return channel.eventLoop.makeSucceededFuture(nil)
                        }
                    )
                    var pipeline = NIOUpgradableHTTPClientPipelineConfiguration(upgradeConfiguration: configuration)
                    // The server sends queued pushes right behind its 101.
                    pipeline.leftOverBytesStrategy = .forwardBytes
                    return try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(
                        configuration: pipeline)
                }
            }
        guard let channel = try await upgrade.get() else {
            throw DevServerError.upgradeRefused
        }
        return channel
    }
}
