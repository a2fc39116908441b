// SPDX-License-Identifier: Apache-2.0

import IntrapushConfiguration
import IntrapushSupport
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket

/// How the upgrade ended.
enum UpgradeOutcome: Sendable {
    case upgraded(any Channel)
    /// The server answered with another HTTP status than 101; the future yields it (and the
    /// body's start) once the response, held back until this outcome is returned, has passed on.
    case refused(EventLoopFuture<Refusal>, channel: any Channel)
}

extension WebSocketDialer {
    /// Fragmented messages are joined, bounded by the same limit as a single frame and by a
    /// count: every fragment costs memory beyond its bytes, so a flood of tiny or empty
    /// fragments must end the message, not grow it.
    static func makeFrameAggregator(maxMessageSize: Int) -> NIOWebSocketFrameAggregator {
        NIOWebSocketFrameAggregator(
            minNonFinalFragmentSize: 1, maxAccumulatedFrameCount: PushConnectionHandler.maximumFragments, maxAccumulatedFrameSize: maxMessageSize)
    }

    static func configurePipeline(
        channel: any Channel,
        settings: ConnectionSettings,
        sslContext: NIOSSLContext?,
        session factory: PushConnectionHandlerFactory
    ) throws -> EventLoopFuture<UpgradeOutcome> {
        let operations = channel.pipeline.syncOperations
        if let sslContext {
            // SNI and hostname verification need a name; an IP literal is verified against its SANs.
            let host = settings.endpoint.host
            let serverHostname = host.isIPAddressLiteral ? nil : host
            try operations.addHandler(NIOSSLClientHandler(context: sslContext, serverHostname: serverHostname))
            if serverHostname != nil || !settings.tlsPins.isEmpty {
                try operations.addHandler(ServerIdentityVerifier(host: serverHostname, pins: settings.tlsPins))
            }
        }
        let upgrader = NIOTypedWebSocketClientUpgrader<UpgradeOutcome>(
            maxFrameSize: settings.maxMessageSize,
            enableAutomaticErrorHandling: false,  // PushConnectionHandler answers protocol errors
            upgradePipelineHandler: { channel, response in
                channel.eventLoop.makeCompletedFuture {
                    try Self.checkSubprotocol(of: response, requested: settings.subprotocol)
                    try channel.pipeline.syncOperations.addHandlers(
                        Self.makeFrameAggregator(maxMessageSize: settings.maxMessageSize),
                        factory.makeHandler()
                    )
                    return UpgradeOutcome.upgraded(channel)
                }
            }
        )
        let configuration = NIOTypedHTTPClientUpgradeConfiguration<UpgradeOutcome>(
            upgradeRequestHead: Self.upgradeRequestHead(for: settings),
            upgraders: [upgrader],
            notUpgradingCompletionHandler: { channel in
                // The refused response head is handed on after this returns: capture its status.
                channel.eventLoop.makeCompletedFuture {
                    let recorder = RefusalStatusRecorder(promise: channel.eventLoop.makePromise())
                    try channel.pipeline.syncOperations.addHandler(recorder)
                    return UpgradeOutcome.refused(recorder.refusal, channel: channel)
                }
            }
        )
        var pipelineConfiguration = NIOUpgradableHTTPClientPipelineConfiguration(upgradeConfiguration: configuration)
        // A server may send its first frames in the same segment as the 101 (redelivery does):
        // the default would drop those bytes, and with them the first pushes.
        pipelineConfiguration.leftOverBytesStrategy = .forwardBytes
        let upgrade = try operations.configureUpgradableHTTPClientPipeline(configuration: pipelineConfiguration)
        // A peer that does not read what we write (pongs, acknowledgements) stops being read
        // until it does; the dead-peer rule then ends the connection. Nearest the socket, so
        // that every read passes it.
        try operations.addHandler(BackPressureHandler(), position: .first)
        upgrade.whenComplete { result in
            switch result {
            case .success(.upgraded(let channel)):
                // Runs as the upgrade handler turns to passing writes on and before it hands on
                // the frames that came with the 101: `hello_text` goes out before anything else.
                channel.pipeline.fireUserInboundEventTriggered(UpgradeCompleted())
            case .success(.refused):
                break  // closed by the dialer once the status is known
            case .failure:
                channel.close(promise: nil)  // else a failed upgrade would leave the socket open
            }
        }
        return upgrade
    }

    /// A plain RFC 6455 `GET`: no body framing (`Content-Length: 0` on a `GET` is what strict
    /// servers such as Python's websockets refuse), the protocol's version and profile (in
    /// `User-Agent` unless `headers` sets one, and always in `Intrapush-Protocol`, which servers
    /// that know nothing of it ignore), this host's identity (`Intrapush-Host`, which such servers
    /// ignore too), the configured `headers`, the subprotocol. `Upgrade`,
    /// `Connection` and the `Sec-WebSocket-*` keys are added by NIO's upgraders.
    static func upgradeRequestHead(for settings: ConnectionSettings) -> HTTPRequestHead {
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: settings.endpoint.hostHeader)
        if !settings.headers.contains(where: { $0.name.lowercased() == "user-agent" }) {
            headers.add(name: "User-Agent", value: userAgent)
        }
        headers.add(name: "Intrapush-Protocol", value: settings.protocolProfile.headerValue)
        if let hostIdentity = settings.hostIdentity {
            headers.add(name: "Intrapush-Host", value: hostIdentity)
        }
        for header in settings.headers {
            headers.add(name: header.name, value: header.value)
        }
        if let subprotocol = settings.subprotocol {
            headers.add(name: "Sec-WebSocket-Protocol", value: subprotocol)
        }
        return HTTPRequestHead(version: .http1_1, method: .GET, uri: settings.endpoint.path, headers: headers)
    }

    /// `intrapushd/0.6.0 intrapush-protocol/1`: the program and the protocol's major version.
    static let userAgent = "intrapushd/\(ProductVersion.upstream) intrapush-protocol/\(ProtocolProfile.version)"

    /// RFC 6455 §4.1: the server selects the subprotocol that was asked for, and none that was not.
    static func checkSubprotocol(of response: HTTPResponseHead, requested: String?) throws(SubprotocolMismatch) {
        let selected = response.headers["Sec-WebSocket-Protocol"].first.map { String($0.trimmingWhitespace()) }
        guard selected == requested else {
            throw SubprotocolMismatch(requested: requested, selected: selected)
        }
    }

    /// Why a dial failed: our own timeout or cancellation explains a closed channel first.
    static func reason(
        for error: any Error, cancellation: DialCancellation, sentCertificate: Bool = false, proxy: HTTPProxy? = nil
    ) -> DisconnectReason {
        if cancellation.hasTimedOut { return .timedOut }
        if let proxy, let reason = proxyReason(for: error, proxy: proxy) { return reason }
        if error is NIOSSLError || error is BoringSSLError, Self.isClientCertificateAlert(String(describing: error)) {
            return .clientCertificateRefused(sent: sentCertificate)
        }
        if cancellation.isCancelled { return .error("connection attempt abandoned") }
        if let refusal = error as? ServerIdentityError { return .serverIdentityRefused(refusal.detail) }
        if error is NIOSSLError || error is BoringSSLError, String(describing: error).contains("CERTIFICATE_VERIFY_FAILED") {
            return .serverIdentityRefused(
                "the server's certificate is not one the trust store vouches for (TLS: \(error)); check ca_file, and that the server sends its intermediate certificates")
        }
        if let mismatch = error as? SubprotocolMismatch {
            return .subprotocolMismatch(requested: mismatch.requested, selected: mismatch.selected)
        }
        if let error = error as? NIOConnectionError {
            if let first = error.connectionErrors.first {
                return .unreachable(describe(first.error))
            }
            if let dnsError = error.dnsAAAAError ?? error.dnsAError {
                return .unreachable(describeResolution(of: error.host, failure: dnsError))
            }
            return .unreachable("cannot connect to \(error.host):\(error.port)")
        }
        if let error = error as? ChannelError, case .connectTimeout = error {
            return .timedOut
        }
        if let error = error as? HTTPParserError {
            return .unreachable(describeMalformedAnswer(error))
        }
        // NIO's upgrade handler reports a connection closed before any HTTP answer this way.
        if let error = error as? ChannelError, error == .inappropriateOperationForState || error == .eof {
            return .unreachable("the server closed the connection during the WebSocket handshake; check host and path")
        }
        return .unreachable(describe(error))
    }

    /// An answer to the upgrade that is not HTTP as the server should speak it, in words.
    static func describeMalformedAnswer(_ error: HTTPParserError) -> String {
        let what = error == .headerOverflow
            ? "its headers are longer than the 80 KiB a client accepts"
            : "it is not well-formed HTTP (\(error))"
        return "the server's answer to the WebSocket upgrade was refused: \(what); check host and path, and any proxy or balancer in front of the server"
    }

    /// "cannot resolve push.corp.example (Name or service not known); check host": the resolver's
    /// own words, without NIO's type name or the port the status line shows already.
    static func describeResolution(of host: String, failure: any Error) -> String {
        let cause = (failure as? HostResolutionFailure).map { " (\($0.reason))" }
            ?? (failure as? SocketAddressError.UnknownHost).map { " (\($0.errorDescription))" } ?? ""
        return "cannot resolve \(host)\(cause); check host and the DNS settings"
    }

    /// What went wrong with the proxy, in words that name it (its credentials as `***`).
    static func proxyReason(for error: any Error, proxy: HTTPProxy) -> DisconnectReason? {
        let named = "the proxy \(proxy) (from \(proxy.source))"
        switch error {
        // 407 is the standard answer; tinyproxy answers wrong credentials with 401.
        case ProxyTunnelError.refused(let status) where status == 407 || status == 401:
            return .proxy(proxy.credentials == nil
                ? "\(named) requires credentials (HTTP \(status)); give them as http://user:password@host:port"
                : "\(named) refused the credentials (HTTP \(status)); check the user and password")
        case ProxyTunnelError.refused(let status):
            return .proxy("\(named) refused the tunnel to the server with HTTP \(status)")
        case ProxyTunnelError.malformed, ProxyTunnelError.unexpectedData:
            return .proxy("\(named) did not answer CONNECT like an HTTP proxy; check proxy")
        case ProxyTunnelError.closed:
            return .proxy("\(named) closed the connection before opening the tunnel")
        case let error as NIOConnectionError:
            let detail = error.connectionErrors.first.map { describe($0.error) }
                ?? (error.dnsAAAAError ?? error.dnsAError).map { _ in "cannot resolve \(proxy.host)" } ?? "cannot connect"
            return .proxy("cannot reach \(named): \(detail)")
        default:
            return nil
        }
    }

    /// The TLS alerts a server sends about our certificate (BoringSSL's names for them).
    static func isClientCertificateAlert(_ text: String) -> Bool {
        ["CERTIFICATE_REQUIRED", "ALERT_BAD_CERTIFICATE", "ALERT_UNKNOWN_CA", "ALERT_CERTIFICATE_UNKNOWN",
         "ALERT_CERTIFICATE_EXPIRED", "ALERT_CERTIFICATE_REVOKED", "ALERT_HANDSHAKE_FAILURE"].contains { text.contains($0) }
    }

    /// nginx answers a missing or refused client certificate with 400 and says so in the body.
    static func isClientCertificateRefusal(_ refusal: Refusal) -> Bool {
        refusal.status == 400 && (refusal.body.contains("No required SSL certificate") || refusal.body.contains("SSL certificate error"))
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? IOError {
            switch error.errnoCode {
            case 111: return "connection refused"
            case 113: return "no route to host"
            case 101: return "network unreachable"
            case 104: return "connection reset"
            default: return error.description
            }
        }
        if let error = error as? ChannelError, case .connectTimeout = error { return "connection timed out" }
        if let error = error as? NIOSSLError { return "TLS: \(error)" }
        if let error = error as? BoringSSLError { return "TLS: \(error)" }
        return String(describing: error)
    }
}

/// The server upgraded, but selected another subprotocol than the one asked for (or none).
struct SubprotocolMismatch: Error {
    var requested: String?
    var selected: String?
}

/// Fired into the pipeline once the upgrade is complete and writes pass: the session handler may
/// send its first frame.
struct UpgradeCompleted: Sendable {}

/// A refused upgrade: the HTTP status and the start of the body (which may say why, as nginx
/// does for a missing or refused client certificate).
struct Refusal: Sendable {
    var status: Int
    var body: String
    /// The `Retry-After` header as sent, if any.
    var retryAfter: String? = nil
}

/// Remembers the status and the first KiB of the body of a refused upgrade.
final class RefusalStatusRecorder: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    private let promise: EventLoopPromise<Refusal>
    private var status: Int?
    private var retryAfter: String?
    private var body: [UInt8] = []
    var refusal: EventLoopFuture<Refusal> { promise.futureResult }

    init(promise: EventLoopPromise<Refusal>) {
        self.promise = promise
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            status = Int(head.status.code)
            retryAfter = head.headers.first(name: "Retry-After")
        case .body(let part):
            body += part.readableBytesView.prefix(max(0, 1024 - body.count))
        case .end:
            finish()
        }
    }

    private func finish() {
        if let status {
            promise.succeed(Refusal(status: status, body: String(decoding: body, as: UTF8.self), retryAfter: retryAfter))
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish()  // a body without framing ends with the connection
        promise.fail(ChannelError.eof)
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        promise.fail(ChannelError.eof)
    }
}

/// Lets the session loop abandon a dial in progress (shutdown, reload) and marks a timeout.
final class DialCancellation: Sendable {
    private struct State {
        var channel: (any Channel)?
        var isCancelled = false
        var hasTimedOut = false
    }
    private let state = NIOLockedValueBox(State())

    init() {}

    var isCancelled: Bool { state.withLockedValue { $0.isCancelled } }
    var hasTimedOut: Bool { state.withLockedValue { $0.hasTimedOut } }

    func attach(_ channel: any Channel) {
        let cancelled = state.withLockedValue { state in
            state.channel = channel
            return state.isCancelled
        }
        if cancelled { channel.close(promise: nil) }
    }

    func timedOut() {
        let channel = state.withLockedValue { state in
            state.hasTimedOut = true
            return state.channel
        }
        channel?.close(promise: nil)
    }

    func cancel() {
        let channel = state.withLockedValue { state in
            state.isCancelled = true
            return state.channel
        }
        channel?.close(promise: nil)
    }
}

extension String {
    var isIPAddressLiteral: Bool {
        (try? SocketAddress(ipAddress: self, port: 0)) != nil
    }
}
