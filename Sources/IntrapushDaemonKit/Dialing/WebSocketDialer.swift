// SPDX-License-Identifier: Apache-2.0

import IntrapushConfiguration
import Logging
import IntrapushSupport
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket

/// Dials the server and hands the upgraded channel to a `PushConnectionHandler`.
///
/// Everything up to the 101 answer — TCP connect, TLS handshake, upgrade — is bounded by
/// `connectTimeout`. A refused upgrade reports its HTTP status, which swift-websocket's client
/// cannot do; that is why this is built on NIOWebSocket directly.
struct WebSocketDialer: Sendable {
    let group: any EventLoopGroup
    let settings: ConnectionSettings
    let sslContext: NIOSSLContext?

    init(group: any EventLoopGroup, settings: ConnectionSettings) throws {
        self.group = group
        self.settings = settings
        if settings.usesTLS {
            var tls = TLSConfiguration.makeClientConfiguration()
            if let caFile = settings.caFile {
                tls.trustRoots = .file(caFile)
            }
            if let identity = settings.clientIdentity {
                let loaded = try ClientTLSIdentity.load(identity.certificateFile, identity.keyFile)
                tls.certificateChain = loaded.chain.map { .certificate($0) }
                tls.privateKey = .privateKey(loaded.key)
            }
            tls.certificateVerification = .fullVerification
            // TLS 1.0 and 1.1 are deprecated (RFC 8996); a server that offers nothing newer is refused.
            tls.minimumTLSVersion = .tlsv12
            self.sslContext = try NIOSSLContext(configuration: tls)
        } else {
            self.sslContext = nil
        }
    }

    /// Opens the connection; on success the channel already runs the session handler that
    /// `session` builds.
    func dial(
        cancellation: DialCancellation,
        session: PushConnectionHandlerFactory
    ) async throws(DialFailure) -> any Channel {
        let settings = self.settings
        let sslContext = self.sslContext
        let sentCertificate = settings.clientIdentity != nil
        let upgrade: EventLoopFuture<UpgradeOutcome>
        do {
            let eventLoop = group.next()
            // Through a proxy, TCP goes to the proxy; the server's name is resolved by the proxy.
            let target: (host: String, port: Int) = settings.proxy.map { ($0.host, $0.port) } ?? (settings.endpoint.host, settings.endpoint.port)
            upgrade = try await ClientBootstrap(group: eventLoop)
                .resolver(HostResolver(eventLoop: eventLoop))
                .connectTimeout(.nanoseconds(settings.connectTimeout.nanoseconds))
                .tcpLiveness(TCPLiveness(deadPeerTimeout: settings.deadPeerTimeout))
                // A read takes what the socket holds, and the pushes of one read share a commit:
                // in a burst, more reads per turn make fewer, larger commits (fewer fsyncs), and
                // the socket buffer bounds what one turn can hold.
                .channelOption(.maxMessagesPerRead, value: 64)
                .connect(host: target.host, port: target.port) { channel in
                    channel.eventLoop.makeCompletedFuture { () throws -> EventLoopFuture<UpgradeOutcome> in
                        cancellation.attach(channel)
                        guard let proxy = settings.proxy else {
                            return try Self.configurePipeline(
                                channel: channel, settings: settings, sslContext: sslContext, session: session)
                        }
                        let tunnel = ProxyTunnelHandler(
                            authority: settings.endpoint.authority, credentials: proxy.credentials,
                            promise: channel.eventLoop.makePromise())
                        try channel.pipeline.syncOperations.addHandler(tunnel, name: ProxyTunnelHandler.name)
                        return tunnel.tunnelOpened.flatMap {
                            channel.pipeline.removeHandler(name: ProxyTunnelHandler.name).flatMapThrowing {
                                try Self.configurePipeline(
                                    channel: channel, settings: settings, sslContext: sslContext, session: session)
                            }.flatMap { $0 }
                        }
                    }
                }
        } catch {
            throw DialFailure(reason: Self.reason(for: error, cancellation: cancellation, sentCertificate: sentCertificate, proxy: settings.proxy))
        }
        let timeout = upgrade.eventLoop.scheduleTask(in: .nanoseconds(settings.connectTimeout.nanoseconds)) {
            cancellation.timedOut()
        }
        defer { timeout.cancel() }
        let outcome: UpgradeOutcome
        do {
            outcome = try await upgrade.get()
        } catch {
            throw DialFailure(reason: Self.reason(for: error, cancellation: cancellation, sentCertificate: sentCertificate, proxy: settings.proxy))
        }
        switch outcome {
        case .upgraded(let channel):
            return channel
        case .refused(let refusalFuture, let channel):
            defer { channel.close(promise: nil) }
            let refusal: Refusal
            do {
                refusal = try await refusalFuture.get()
            } catch {
                throw DialFailure(reason: Self.reason(for: error, cancellation: cancellation, sentCertificate: sentCertificate, proxy: settings.proxy))
            }
            if settings.usesTLS, Self.isClientCertificateRefusal(refusal) {
                throw DialFailure(reason: .clientCertificateRefused(sent: sentCertificate))
            }
            if refusal.status == 503 || refusal.status == 429, let header = refusal.retryAfter,
                let wait = RetryHint.parseHeader(header, now: WallClock.nowMilliseconds() / 1000)
            {
                throw DialFailure(reason: .serverAskedToWait(wait, origin: "HTTP \(refusal.status)"))
            }
            throw DialFailure(reason: .handshakeRejected(status: refusal.status))
        }
    }
}

/// Builds the session handler on the channel's event loop once the upgrade succeeded.
struct PushConnectionHandlerFactory: Sendable {
    let settings: ConnectionSettings
    let committer: any PushCommitter
    let events: ConnectionEventSink
    let metrics: DaemonMetrics?
    /// Runs `on_notification` for what the connection stored; replaced later with `HookReplaced`.
    let hook: HookRunner?
    let outbox: OutboxCoordinator?
    let logger: Logger

    init(
        settings: ConnectionSettings, committer: any PushCommitter, events: ConnectionEventSink,
        hook: HookRunner? = nil, outbox: OutboxCoordinator? = nil, metrics: DaemonMetrics? = nil, logger: Logger
    ) {
        self.metrics = metrics
        self.settings = settings
        self.committer = committer
        self.events = events
        self.hook = hook
        self.outbox = outbox
        self.logger = logger
    }

    func makeHandler() -> PushConnectionHandler {
        PushConnectionHandler(
            settings: settings, committer: committer, events: events, hook: hook, outbox: outbox, metrics: metrics,
            logger: logger)
    }
}

/// A dial that failed before the connection opened.
struct DialFailure: Error, Sendable {
    var reason: DisconnectReason
}
