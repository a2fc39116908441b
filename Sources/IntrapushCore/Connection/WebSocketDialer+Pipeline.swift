import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket

/// How the upgrade ended.
enum UpgradeOutcome: Sendable {
    case upgraded(any Channel)
    /// The server answered with another HTTP status than 101; the future yields it once the
    /// response head, held back until this outcome is returned, has passed on.
    case refused(status: EventLoopFuture<Int>, channel: any Channel)
}

extension WebSocketDialer {
    static func configurePipeline(
        channel: any Channel,
        target: DialTarget,
        sslContext: NIOSSLContext?,
        session factory: PushSessionHandlerFactory
    ) throws -> EventLoopFuture<UpgradeOutcome> {
        let operations = channel.pipeline.syncOperations
        if let sslContext {
            // SNI and hostname verification need a name; an IP literal is verified against its SANs.
            let serverHostname = target.host.isIPAddressLiteral ? nil : target.host
            try operations.addHandler(NIOSSLClientHandler(context: sslContext, serverHostname: serverHostname))
        }
        let upgrader = NIOTypedWebSocketClientUpgrader<UpgradeOutcome>(
            maxFrameSize: factory.settings.maxMessageSize,
            enableAutomaticErrorHandling: false,  // PushSessionHandler answers protocol errors
            upgradePipelineHandler: { channel, _ in
                channel.eventLoop.makeCompletedFuture {
                    // Fragmented messages are joined, bounded by the same limit as a single frame.
                    try channel.pipeline.syncOperations.addHandlers(
                        NIOWebSocketFrameAggregator(
                            minNonFinalFragmentSize: 0,
                            maxAccumulatedFrameCount: Int.max,
                            maxAccumulatedFrameSize: factory.settings.maxMessageSize
                        ),
                        factory.makeHandler()
                    )
                    return UpgradeOutcome.upgraded(channel)
                }
            }
        )
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: target.hostHeader)
        headers.add(name: "User-Agent", value: "intrapushd")
        headers.add(name: "Content-Length", value: "0")
        let requestHead = HTTPRequestHead(version: .http1_1, method: .GET, uri: target.path, headers: headers)
        let configuration = NIOTypedHTTPClientUpgradeConfiguration<UpgradeOutcome>(
            upgradeRequestHead: requestHead,
            upgraders: [upgrader],
            notUpgradingCompletionHandler: { channel in
                // The refused response head is handed on after this returns: capture its status.
                channel.eventLoop.makeCompletedFuture {
                    let recorder = RefusalStatusRecorder(promise: channel.eventLoop.makePromise())
                    try channel.pipeline.syncOperations.addHandler(recorder)
                    return UpgradeOutcome.refused(status: recorder.status, channel: channel)
                }
            }
        )
        var pipelineConfiguration = NIOUpgradableHTTPClientPipelineConfiguration(upgradeConfiguration: configuration)
        // A server may send its first frames in the same segment as the 101 (redelivery does):
        // the default would drop those bytes, and with them the first pushes.
        pipelineConfiguration.leftOverBytesStrategy = .forwardBytes
        return try operations.configureUpgradableHTTPClientPipeline(configuration: pipelineConfiguration)
    }

    /// Why a dial failed: our own timeout or cancellation explains a closed channel first.
    static func reason(for error: any Error, cancellation: DialCancellation) -> DisconnectReason {
        if cancellation.hasTimedOut { return .timedOut }
        if cancellation.isCancelled { return .error("connection attempt abandoned") }
        if let error = error as? NIOConnectionError {
            if let first = error.connectionErrors.first {
                return .unreachable(describe(first.error))
            }
            if let dnsError = error.dnsAAAAError ?? error.dnsAError {
                return .unreachable("cannot resolve \(error.host): \(dnsError)")
            }
            return .unreachable("cannot connect to \(error.host):\(error.port)")
        }
        if let error = error as? ChannelError, case .connectTimeout = error {
            return .timedOut
        }
        return .unreachable(describe(error))
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

/// Passes the HTTP response head of a refused upgrade on and remembers its status.
final class RefusalStatusRecorder: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    private let promise: EventLoopPromise<Int>
    var status: EventLoopFuture<Int> { promise.futureResult }

    init(promise: EventLoopPromise<Int>) {
        self.promise = promise
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let head) = unwrapInboundIn(data) {
            promise.succeed(Int(head.status.code))
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise.fail(ChannelError.eof)
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        promise.fail(ChannelError.eof)
    }
}

/// Lets the session loop abandon a dial in progress (shutdown, reload) and marks a timeout.
public final class DialCancellation: Sendable {
    private struct State {
        var channel: (any Channel)?
        var isCancelled = false
        var hasTimedOut = false
    }
    private let state = NIOLockedValueBox(State())

    public init() {}

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

    public func cancel() {
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
