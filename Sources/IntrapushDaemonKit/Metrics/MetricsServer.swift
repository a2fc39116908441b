// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif
import IntrapushConfiguration
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix

/// `metrics_listen`: Prometheus text exposition at `GET /metrics` (and `HEAD`), nothing else.
final class MetricsServer: Sendable {
    let channel: any Channel

    private init(channel: any Channel) {
        self.channel = channel
    }

    /// Listens on `address`; throws when it cannot (the caller exits, naming `metrics_listen`).
    /// Scrapers connected at once; one more is closed at once. Prometheus keeps one.
    static let maximumConnections = 16
    /// A connection with no request and no answer under way for this long is closed.
    static let idleTimeout: TimeAmount = .seconds(60)

    static func bind(address: ListenAddress, exporter: MetricsExporter, eventLoop: any EventLoop, logger: Logger) async throws -> MetricsServer {
        let open = NIOLoopBoundBox.makeBoxSendingValue(0, as: Int.self, eventLoop: eventLoop)
        let bootstrap = ServerBootstrap(group: eventLoop)
            .serverChannelOption(.backlog, value: 64)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    guard open.value < Self.maximumConnections else {
                        channel.close(promise: nil)
                        return
                    }
                    open.value += 1
                    channel.closeFuture.whenComplete { _ in open.value -= 1 }
                    try channel.pipeline.syncOperations.addHandler(IdleStateHandler(allTimeout: Self.idleTimeout))
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(MetricsRequestHandler(exporter: exporter, logger: logger))
                }
            }
        do {
            return MetricsServer(channel: try await bootstrap.bind(host: address.address, port: address.port).get())
        } catch let error as IOError {
            throw MetricsListenFailure(reason: String(cString: strerror(error.errnoCode)))
        }
    }

    /// The port bound (the configured one, or the one the kernel chose for port 0).
    var port: Int? { channel.localAddress?.port }

    func close() {
        channel.close(promise: nil)
    }
}

/// Binding `metrics_listen` failed: the system's reason, in words ("Address already in use").
struct MetricsListenFailure: Error, CustomStringConvertible {
    var reason: String
    var description: String { reason }
}

/// Answers one request at a time (HTTP/1.1, keep-alive as the client asks).
final class MetricsRequestHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let exporter: MetricsExporter
    let logger: Logger
    private var request: HTTPRequestHead?

    init(exporter: MetricsExporter, logger: Logger) {
        self.exporter = exporter
        self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): request = head
        case .body: break
        case .end:
            guard let head = request else { return }
            request = nil
            answer(head, context: context)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent { context.close(promise: nil) } else { context.fireUserInboundEventTriggered(event) }
    }

    private func answer(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        let path = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        guard path == "/metrics" else {
            return respond(head, .notFound, body: Array("Not found: the metrics are at /metrics\n".utf8), context: context)
        }
        guard head.method == .GET || head.method == .HEAD else {
            return respond(head, .methodNotAllowed, body: Array("Only GET and HEAD\n".utf8), extra: [("Allow", "GET, HEAD")], context: context)
        }
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        exporter.render(on: context.eventLoop).whenComplete { result in
            let (handler, context) = loopBound.value
            switch result {
            case .success(let text):
                handler.respond(head, .ok, body: text, contentType: "text/plain; version=0.0.4; charset=utf-8", context: context)
            case .failure(let error):
                handler.logger.warning("cannot gather the metrics: \(error)")
                handler.respond(head, .internalServerError, body: Array("cannot gather the metrics; see the daemon's journal\n".utf8), context: context)
            }
        }
    }

    private func respond(
        _ request: HTTPRequestHead, _ status: HTTPResponseStatus, body: [UInt8],
        contentType: String = "text/plain; charset=utf-8", extra: [(String, String)] = [], context: ChannelHandlerContext
    ) {
        var headers = HTTPHeaders([("Content-Type", contentType), ("Content-Length", String(body.count))] + extra)
        let keepAlive = request.isKeepAlive
        headers.add(name: "Connection", value: keepAlive ? "keep-alive" : "close")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: request.version, status: status, headers: headers))), promise: nil)
        if request.method != .HEAD {
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
        }
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { [channel = context.channel] _ in
            if !keepAlive { channel.close(promise: nil) }
        }
    }
}
